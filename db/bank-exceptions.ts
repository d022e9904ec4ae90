import type { Db, Knex } from './knex';
import { newId } from '../domain/ids';

export type BankExceptionKind =
  'unmatched' | 'amount_mismatch' | 'duplicate' | 'reversal' | 'unknown_account';

export interface BankExceptionRow {
  id: string;
  livemode: boolean;
  bank_file_id: string;
  bank_entry_id: number | null;
  detail_index: number;
  kind: BankExceptionKind;
  message: string;
  expected_amount: number | null;
  actual_amount: number | null;
  status: 'open' | 'resolved' | 'handled';
  resolution_note: string | null;
  resolved_payment_intent_id: string | null;
  resolved_by: string | null;
  resolved_at: Date | null;
  created_at: Date;
}

/**
 * A new exception id in SQL, for set-based inserts: `bex_` and 32 hex characters (a v4 uuid's
 * 122 random bits), as pgcrypto is not installed and base62 in SQL is not worth its cost.
 */
export const NEW_EXCEPTION_ID_SQL = `'bex_' || replace(gen_random_uuid()::text, '-', '')`;

/** Records one exception of a file; recorded once per (file, entry, detail, kind). */
export async function recordBankException(
  db: Db,
  e: {
    livemode: boolean;
    bankFileId: string;
    bankEntryId?: number | null;
    detailIndex?: number;
    kind: BankExceptionKind;
    message: string;
    expectedAmount?: number | null;
    actualAmount?: number | null;
  },
): Promise<void> {
  await db.raw(
    `insert into bank_exceptions (id, livemode, bank_file_id, bank_entry_id, detail_index, kind, message,
                                  expected_amount, actual_amount)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?)
     on conflict do nothing`,
    [
      newId('bex'),
      e.livemode,
      e.bankFileId,
      e.bankEntryId ?? null,
      e.detailIndex ?? 0,
      e.kind,
      e.message,
      e.expectedAmount ?? null,
      e.actualAmount ?? null,
    ],
  );
}

/** The exceptions queue: open exceptions of an environment, newest first, paged by (created_at, id). */
export async function listOpenBankExceptions(
  db: Db,
  scope: { livemode: boolean },
  opts: { limit?: number; bankFileId?: string } = {},
): Promise<BankExceptionRow[]> {
  const query = db<BankExceptionRow>('bank_exceptions')
    .where({ livemode: scope.livemode, status: 'open' })
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .limit(opts.limit ?? 100);
  if (opts.bankFileId !== undefined) query.where({ bank_file_id: opts.bankFileId });
  return query;
}

/** Exceptions of one file, any status, in entry order. */
export async function listBankExceptionsOfFile(
  db: Db,
  scope: { livemode: boolean },
  bankFileId: string,
): Promise<BankExceptionRow[]> {
  return db<BankExceptionRow>('bank_exceptions')
    .where({ livemode: scope.livemode, bank_file_id: bankFileId })
    .orderBy([{ column: 'bank_entry_id' }, { column: 'detail_index' }, { column: 'kind' }]);
}

/** One exception of an environment, locked until the transaction ends. */
export async function lockBankException(
  trx: Knex.Transaction,
  livemode: boolean,
  id: string,
): Promise<BankExceptionRow | undefined> {
  return trx<BankExceptionRow>('bank_exceptions').where({ id, livemode }).forUpdate().first();
}

/** Closes an exception that is still open, as resolved (with its payment) or handled. */
export async function closeBankException(
  trx: Knex.Transaction,
  livemode: boolean,
  id: string,
  close: {
    status: 'resolved' | 'handled';
    note: string;
    resolvedBy: string;
    paymentIntentId?: string;
  },
): Promise<BankExceptionRow | undefined> {
  const [row] = await trx<BankExceptionRow>('bank_exceptions')
    .where({ id, livemode, status: 'open' })
    .update({
      status: close.status,
      resolution_note: close.note,
      ...(close.paymentIntentId !== undefined && { resolved_payment_intent_id: close.paymentIntentId }),
      resolved_by: close.resolvedBy,
      resolved_at: trx.fn.now() as unknown as Date,
    })
    .returning('*');
  return row;
}

/** The payment an operator names to resolve an exception: any merchant's, of the same environment. */
export async function findPaymentOfEnvironment(
  db: Db,
  livemode: boolean,
  id: string,
): Promise<{ id: string; merchant_id: string } | undefined> {
  return db('payment_intents')
    .where({ id, livemode })
    .first<{ id: string; merchant_id: string } | undefined>('id', 'merchant_id');
}
