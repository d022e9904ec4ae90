import type { Db, Knex } from './knex';
import type { Scope } from '../domain/scope';

/** Whether an id names a row of this merchant in the other mode (for a helpful 404). */
export async function existsInOtherMode(
  trx: Db,
  table: string,
  scope: Scope,
  id: string,
  opts: { softDeleted?: boolean } = {},
): Promise<boolean> {
  const query = trx(table).where({ id, merchant_id: scope.merchantId, livemode: !scope.livemode });
  if (opts.softDeleted) query.whereNull('deleted_at');
  const row: unknown = await query.first('id');
  return row !== undefined;
}

/** Runs `work` in the caller's transaction, or in a new one when given the knex instance. */
export async function inTransaction<T>(db: Db, work: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
  if ((db as Knex.Transaction).isTransaction) return work(db as Knex.Transaction);
  return db.transaction(work);
}

/** Whether a database error is a unique violation of the named constraint or index. */
export function isUniqueViolation(err: unknown, constraint: string): boolean {
  const e = err as { code?: string; constraint?: string };
  return e.code === '23505' && e.constraint === constraint;
}

/** The page options shared by every list. */
export interface PageOptions {
  limit: number;
  startingAfter?: string;
  endingBefore?: string;
}
