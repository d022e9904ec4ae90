import type { Db, Knex } from './knex';
import type { Scope } from '../domain/scope';
import { pageByCreated } from './pagination';
import { existsInOtherMode, type PageOptions } from './tenant';

// What every point-of-sale repository shares: each row carries the merchant and the mode, and every
// query is scoped by both, so a test credential never reads or changes a live till's rows.

export const tenant = (scope: Scope) => ({ merchant_id: scope.merchantId, livemode: scope.livemode });

/** Reads of one POS table by the tenancy scope: a page newest first, one row by id, the other mode. */
export function posTable(db: Knex, table: string) {
  return {
    page: <T extends { id: string }>(scope: Scope, opts: PageOptions, where = {}) =>
      pageByCreated<T>(db(table).where({ ...tenant(scope), ...where }), table, scope, opts),
    one: <T>(scope: Scope, id: string, trx: Db = db) =>
      trx(table)
        .where({ ...tenant(scope), id })
        .first() as Promise<T | undefined>,
    /** Whether the id exists in the other mode, for the 404 that says so. */
    otherMode: (scope: Scope, id: string) => existsInOtherMode(db, table, scope, id),
  };
}
