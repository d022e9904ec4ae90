import type { Db } from './knex';
import type { PortalSessionRow } from './billing-portal-sessions';

/**
 * What the customer portal shows of a customer: the subscriptions that still run, with the plan
 * they run on (a pending plan change already shown), the payments they made, and the prices the
 * portal session lets the customer switch to.
 */

export interface PortalSubscriptionRow {
  id: string;
  status: string;
  quantity: number;
  current_period_end: Date;
  cancel_at_period_end: boolean;
  price_id: string;
  unit_amount: string;
  nickname: string | null;
  name: string;
  payment_method_id: string | null;
}

export interface PortalPaymentRow {
  created_at: Date;
  amount: string;
  status: string;
}

export interface PortalPriceRow {
  id: string;
  unit_amount: string;
  nickname: string | null;
  name: string;
  recurring_interval: string;
}

const ENDED = ['canceled', 'incomplete_expired'];

export function createPortalOverviewRepository(db: Db) {
  return {
    async subscriptions(customerId: string): Promise<PortalSubscriptionRow[]> {
      return db('subscriptions as s')
        .join('prices as p', 'p.id', db.raw('coalesce(s.pending_price_id, s.price_id)'))
        .join('products as pr', 'pr.id', 'p.product_id')
        .where({ 's.customer_id': customerId })
        .whereNotIn('s.status', ENDED)
        .orderBy('s.created_at')
        .select<PortalSubscriptionRow[]>(
          's.id',
          's.status',
          's.quantity',
          's.current_period_end',
          's.cancel_at_period_end',
          's.price_id',
          'p.unit_amount',
          'p.nickname',
          'pr.name',
          's.payment_method_id',
        );
    },

    /** The ids of the customer's subscriptions that still run: a new card goes to each. */
    async runningSubscriptionIds(customerId: string): Promise<string[]> {
      return db('subscriptions')
        .where({ customer_id: customerId })
        .whereNotIn('status', ENDED)
        .pluck<string[]>('id');
    },

    /** A subscription of the visit's customer, in the session's merchant and environment. */
    async ownSubscription(session: PortalSessionRow, id: string): Promise<{ id: string } | undefined> {
      return db('subscriptions')
        .where({
          id,
          customer_id: session.customer_id,
          merchant_id: session.merchant_id,
          livemode: session.livemode,
        })
        .first<{ id: string } | undefined>('id');
    },

    /** The newest subscription payments, newest first. */
    async payments(customerId: string, limit: number): Promise<PortalPaymentRow[]> {
      return db('payment_intents')
        .where({ customer_id: customerId })
        .whereNotNull('subscription_id')
        .orderBy('created_at', 'desc')
        .limit(limit)
        .select<PortalPaymentRow[]>('created_at', 'amount', 'status');
    },

    async prices(ids: string[]): Promise<PortalPriceRow[]> {
      if (ids.length === 0) return [];
      return db('prices as p')
        .join('products as pr', 'pr.id', 'p.product_id')
        .whereIn('p.id', ids)
        .select<PortalPriceRow[]>('p.id', 'p.unit_amount', 'p.nickname', 'pr.name', 'p.recurring_interval');
    },
  };
}

export type PortalOverviewRepository = ReturnType<typeof createPortalOverviewRepository>;
