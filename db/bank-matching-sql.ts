import type { Knex } from './knex';
import { sqlArgs } from './event-batch';
import { NEW_EXCEPTION_ID_SQL } from './bank-exceptions';

/** SQL helpers shared by the matching repositories (bank-matching.ts, bank-statement-matching.ts). */

export interface FileRef {
  fileId: string;
  livemode: boolean;
  /** The connection's collection account, 12 digits (4-2-6 without dashes). */
  collectionAccount: string;
}

/** Who the audit log names for what the bank sync itself decides (payouts paid, exceptions handled). */
export const SYSTEM_ACTOR = { kind: 'system', id: null, name: 'bank sync' } as const;

export const rows = async <T>(trx: Knex.Transaction, sql: string, args: unknown[]): Promise<T[]> =>
  (await trx.raw<{ rows: T[] }>(sql, sqlArgs(...args))).rows;

export const count = async (trx: Knex.Transaction, sql: string, args: unknown[]): Promise<number> =>
  (await trx.raw<{ rowCount: number }>(sql, sqlArgs(...args))).rowCount;

/** Sets one entry aside with an exception (entry level, or one detail of it). */
export async function entryException(
  trx: Knex.Transaction,
  f: FileRef,
  entryId: number,
  kind: 'unmatched' | 'amount_mismatch',
  message: string,
  amounts: { expected: number | null; actual: number; detailIndex?: number },
): Promise<number> {
  await trx('bank_entries').where({ id: entryId }).update({ match_status: 'exception' });
  return count(
    trx,
    `insert into bank_exceptions (id, livemode, bank_file_id, bank_entry_id, detail_index, kind, message,
                                  expected_amount, actual_amount)
     values (${NEW_EXCEPTION_ID_SQL}, ?, ?, ?, ?, ?, ?, ?, ?) on conflict do nothing`,
    [
      f.livemode,
      f.fileId,
      entryId,
      amounts.detailIndex ?? 0,
      kind,
      message,
      amounts.expected,
      amounts.actual,
    ],
  );
}
