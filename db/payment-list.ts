import type { Db, Knex } from './knex';
import type { Scope } from '../domain/scope';
import { InvalidRequestError } from '../domain/errors';

/** The dashboard's payment list filter (decision 0232), already checked by the service. */
export interface PaymentListFilter {
  statuses?: readonly string[];
  /** Created on or after this instant. */
  createdFrom?: Date;
  /** Created before this instant. */
  createdBefore?: Date;
  amountMin?: number;
  amountMax?: number;
  customerId?: string;
  /** `krafa`: a payment a krafa made; `card`: any other. */
  kind?: 'card' | 'krafa';
}

export const PAYMENT_SORTS = ['created_desc', 'created_asc', 'amount_desc', 'amount_asc'] as const;
export type PaymentSort = (typeof PAYMENT_SORTS)[number];

/** One row of the list and of its CSV export. */
export interface PaymentListRow {
  id: string;
  created_at: Date;
  status: string;
  amount: number;
  amount_captured: number;
  amount_refunded: number;
  fee_amount: number | null;
  customer_id: string | null;
  description: string | null;
  card_last4: string | null;
  kind: 'card' | 'krafa';
}

const ORDER: Record<PaymentSort, { column: 'created_at' | 'amount'; dir: 'asc' | 'desc' }> = {
  created_desc: { column: 'created_at', dir: 'desc' },
  created_asc: { column: 'created_at', dir: 'asc' },
  amount_desc: { column: 'amount', dir: 'desc' },
  amount_asc: { column: 'amount', dir: 'asc' },
};

/**
 * The merchant's payments under the dashboard's filters, sorted and paged by key (the sort column,
 * then the id), so a page and the CSV export's pages read the same rows in the same order and a
 * row inserted meanwhile never shifts them.
 */
export function createPaymentListRepository(db: Db) {
  function filtered(scope: Scope, f: PaymentListFilter): Knex.QueryBuilder {
    const q = db('payment_intents as p')
      .leftJoin('payment_methods as pm', 'pm.id', 'p.payment_method_id')
      .where({ 'p.merchant_id': scope.merchantId, 'p.livemode': scope.livemode });
    if (f.statuses?.length) q.whereIn('p.status', f.statuses);
    if (f.createdFrom) q.where('p.created_at', '>=', f.createdFrom);
    if (f.createdBefore) q.where('p.created_at', '<', f.createdBefore);
    if (f.amountMin !== undefined) q.where('p.amount', '>=', f.amountMin);
    if (f.amountMax !== undefined) q.where('p.amount', '<=', f.amountMax);
    if (f.customerId) q.where('p.customer_id', f.customerId);
    const claimOf = db('claims as c')
      .whereRaw('c.payment_intent_id = p.id and c.merchant_id = p.merchant_id and c.livemode = p.livemode')
      .select(db.raw('1'));
    if (f.kind === 'krafa') q.whereExists(claimOf);
    if (f.kind === 'card') q.whereNotExists(claimOf);
    return q.select(
      'p.id',
      'p.created_at',
      'p.status',
      'p.amount',
      'p.amount_captured',
      'p.amount_refunded',
      'p.fee_amount',
      'p.customer_id',
      'p.description',
      'pm.card_last4',
      db.raw(
        `case when exists (select 1 from claims k where k.payment_intent_id = p.id and k.merchant_id = p.merchant_id
           and k.livemode = p.livemode) then 'krafa' else 'card' end as kind`,
      ),
    );
  }

  return {
    /**
     * `limit` rows of the filtered list in `sort` order, after the row `after` (an id of the scope);
     * one more is read to tell whether more follow.
     */
    async page(
      scope: Scope,
      f: PaymentListFilter,
      sort: PaymentSort,
      opts: { limit: number; after?: string },
    ): Promise<{ data: PaymentListRow[]; hasMore: boolean }> {
      const { column, dir } = ORDER[sort];
      const q = filtered(scope, f);
      if (opts.after !== undefined) {
        const cursor: unknown = await db('payment_intents')
          .where({ id: opts.after, merchant_id: scope.merchantId, livemode: scope.livemode })
          .first('id');
        if (cursor === undefined)
          throw new InvalidRequestError(`No such payment: '${opts.after}'`, {
            code: 'resource_missing',
            param: 'after',
          });
        q.whereRaw(
          `(p.${column}, p.id) ${dir === 'desc' ? '<' : '>'} (select ${column}, id from payment_intents where id = ?)`,
          [opts.after],
        );
      }
      const rows = (await q
        .orderBy([
          { column: `p.${column}`, order: dir },
          { column: 'p.id', order: dir },
        ])
        .limit(opts.limit + 1)) as PaymentListRow[];
      return { data: rows.slice(0, opts.limit), hasMore: rows.length > opts.limit };
    },
  };
}

export type PaymentListRepository = ReturnType<typeof createPaymentListRepository>;
