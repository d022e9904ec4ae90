import type { Db } from './knex';
import { sqlArgs } from './event-batch';

/** One transaction detail of an entry, compacted to what matching and the dashboard read. */
export interface BankEntryDetail {
  /** Minor units (ISK krónur), positive; `credit` gives the direction. */
  amount: number;
  credit: boolean;
  /** `Refs` as the bank sent them (TxId, EndToEndId, AcctSvcrRef, …). */
  refs: Record<string, string>;
  /** `RmtInf/Strd/CdtrRefInf/Ref`, else the first unstructured line. */
  reference?: string;
  /** The payer's (credit) or payee's (debit) id, a kennitala in Icelandic files. */
  party?: string;
  /**
   * The payer's (credit, `DbtrAcct`) or payee's (debit, `CdtrAcct`) account as 12 digits (4-2-6),
   * when the bank names an Icelandic one: where the refund of a krafa goes (decision 0101).
   */
  partyAccount?: string;
  /** The bank's charges for this transaction (`Chrgs`), minor units, when it reported any. */
  charges?: number;
}

export interface NewBankStatement {
  bankFileId: string;
  livemode: boolean;
  messageType: 'camt.053' | 'camt.054';
  statementId: string;
  sequenceNumber: string;
  account: string;
  currency: string | null;
  openingBalance: number | null;
  closingBalance: number | null;
}

export interface NewBankEntry {
  entryIndex: number;
  status: string;
  booked: boolean;
  credit: boolean;
  reversal: boolean;
  amount: number;
  currency: string;
  bookingDate: string | null;
  valueDate: string | null;
  acctSvcrRef: string | null;
  entryRef: string | null;
  endToEndId: string | null;
  reference: string | null;
  details: BankEntryDetail[];
}

export interface BankEntryRow {
  id: number;
  bank_statement_id: number;
  bank_file_id: string;
  livemode: boolean;
  entry_index: number;
  status: string;
  booked: boolean;
  credit: boolean;
  reversal: boolean;
  amount: number;
  currency: string;
  booking_date: string | null;
  value_date: string | null;
  acct_svcr_ref: string | null;
  entry_ref: string | null;
  end_to_end_id: string | null;
  reference: string | null;
  details: BankEntryDetail[];
  match_status: 'unmatched' | 'matched' | 'exception' | 'information';
  matched_kind: string | null;
}

/**
 * Inserts a statement header. Returns its id, or null when the same statement (account, id,
 * sequence) is already stored from another file: a duplicate, which posts nothing.
 */
export async function insertBankStatement(db: Db, s: NewBankStatement): Promise<number | null> {
  const result = await db.raw<{ rows: { id: number }[] }>(
    `insert into bank_statements (bank_file_id, livemode, message_type, statement_id, sequence_number,
                                  account, currency, opening_balance, closing_balance)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?)
     on conflict do nothing
     returning id`,
    sqlArgs(
      s.bankFileId,
      s.livemode,
      s.messageType,
      s.statementId,
      s.sequenceNumber,
      s.account,
      s.currency,
      s.openingBalance,
      s.closingBalance,
    ),
  );
  return result.rows[0]?.id ?? null;
}

/** Records the verified totals once the parser has checked them. */
export async function completeBankStatement(
  db: Db,
  id: number,
  totals: { entryCount: number; credits: number; debits: number },
): Promise<void> {
  await db('bank_statements')
    .where({ id })
    .update({ entry_count: totals.entryCount, credits: totals.credits, debits: totals.debits });
}

/**
 * Inserts a batch of a statement's entries in one statement (unnest of column arrays): one round
 * trip per batch, whatever its size. Entries already stored (a retried batch) are left as they are.
 */
export async function insertBankEntries(
  db: Db,
  statement: { id: number; bankFileId: string; livemode: boolean },
  entries: NewBankEntry[],
): Promise<void> {
  if (entries.length === 0) return;
  const col = <T>(pick: (e: NewBankEntry) => T): T[] => entries.map(pick);
  await db.raw(
    `insert into bank_entries (bank_statement_id, bank_file_id, livemode, entry_index, status, booked, credit,
                               reversal, amount, currency, booking_date, value_date, acct_svcr_ref,
                               entry_ref, end_to_end_id, reference, details, match_status)
     select ?::bigint, ?, ?, t.*
       from unnest(?::int[], ?::text[], ?::bool[], ?::bool[], ?::bool[], ?::bigint[], ?::text[], ?::text[],
                   ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::jsonb[], ?::text[]) as t
     on conflict (bank_statement_id, entry_index) do nothing`,
    sqlArgs(
      statement.id,
      statement.bankFileId,
      statement.livemode,
      col((e) => e.entryIndex),
      col((e) => e.status),
      col((e) => e.booked),
      col((e) => e.credit),
      col((e) => e.reversal),
      col((e) => e.amount),
      col((e) => e.currency),
      col((e) => e.bookingDate),
      col((e) => e.valueDate),
      col((e) => e.acctSvcrRef),
      col((e) => e.entryRef),
      col((e) => e.endToEndId),
      col((e) => e.reference),
      col((e) => JSON.stringify(e.details)),
      // Pending and information entries are never money: nothing to match, nothing to settle.
      col((e) => (e.booked ? 'unmatched' : 'information')),
    ),
  );
}

/** A file's entries in statement and document order (the dashboard's entry list), paged by id. */
export async function listBankEntriesOfFile(
  db: Db,
  scope: { livemode: boolean },
  bankFileId: string,
  opts: { limit?: number; afterId?: number } = {},
): Promise<BankEntryRow[]> {
  const query = db<BankEntryRow>('bank_entries')
    .where({ livemode: scope.livemode, bank_file_id: bankFileId })
    .orderBy('id')
    .limit(opts.limit ?? 500);
  if (opts.afterId !== undefined) query.where('id', '>', opts.afterId);
  return query;
}
