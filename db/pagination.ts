import type { Knex } from './knex';
import type { Scope } from '../domain/scope';
import { InvalidRequestError } from '../domain/errors';

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
  // A row on the page proves the cursor exists; an empty page may mean it names nothing, which is
  // the client's mistake to be told of (decision 0108), not an empty list.
  if (cursor !== undefined && rows.length === 0 && !(await rowExists(query, table, scope, cursor))) {
    const noun = table.replace(/ies$/, 'y').replace(/s$/, '').replace(/_/g, ' ');
    throw new InvalidRequestError(`No such ${noun}: '${cursor}'`, {
      code: 'resource_missing',
      param: opts.startingAfter !== undefined ? 'starting_after' : 'ending_before',
    });
  }
  const page = rows.slice(0, opts.limit);
  return { data: forward ? page : page.reverse(), hasMore: rows.length > opts.limit };
}

/** Whether the scope has a row with this id, asked through the page query's own connection. */
async function rowExists(
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- knex's row typing varies per table
  query: Knex.QueryBuilder<any, any>,
  table: string,
  scope: Scope,
  id: string,
): Promise<boolean> {
  // The query's client is the transaction's when the page runs in one, so the check sees its rows.
  const client = (query as unknown as { client: { queryBuilder(): Knex.QueryBuilder } }).client;
  const row: unknown = await client
    .queryBuilder()
    .from(table)
    .where({ id, merchant_id: scope.merchantId, livemode: scope.livemode })
    .first('id');
  return row !== undefined;
}
