import type { Knex } from './knex';
import type { Scope } from '../domain/scope';

/**
 * Cursor pagination newest first, Stripe's list order: `starting_after` pages towards older rows,
 * `ending_before` towards newer ones. The cursor is an id; its (created_at, id) is the position, so
 * rows inserted meanwhile never shift a page.
 */
export async function pageByCreated<T extends { id: string }>(
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- knex's row typing varies per table
  query: Knex.QueryBuilder<any, any>,
  table: string,
  scope: Scope,
  opts: { limit: number; startingAfter?: string; endingBefore?: string },
): Promise<{ data: T[]; hasMore: boolean }> {
  const cursor = opts.startingAfter ?? opts.endingBefore;
  const forward = opts.endingBefore === undefined;
  if (cursor !== undefined) {
    query.whereRaw(
      `(created_at, id) ${forward ? '<' : '>'} (select created_at, id from ${table} where id = ? and merchant_id = ? and livemode = ?)`,
      [cursor, scope.merchantId, scope.livemode],
    );
  }
  const dir = forward ? 'desc' : 'asc';
  const rows = (await query
    .orderBy([
      { column: 'created_at', order: dir },
      { column: 'id', order: dir },
    ])
    .limit(opts.limit + 1)) as T[];
  const page = rows.slice(0, opts.limit);
  return { data: forward ? page : page.reverse(), hasMore: rows.length > opts.limit };
}
