import type { Db } from './knex';
import type { Scope } from '../domain/scope';
import type { DunningEndState, SubscriptionStatus } from '../domain/subscription';
import { pageByCreated } from './pagination';
import { existsInOtherMode, type PageOptions } from './tenant';

export interface SubscriptionRow {
  id: string;
  merchant_id: string;
  livemode: boolean;
  customer_id: string;
  price_id: string;
  quantity: number;
  status: SubscriptionStatus;
  payment_method_id: string | null;
  /** `claim`: each period is collected by a krafa instead of a card charge (decision 0064). */
  collection_method: 'charge_automatically' | 'claim';
  test_clock_id: string | null;
  billing_cycle_anchor: Date;
  current_period_index: number;
  current_period_start: Date;
  current_period_end: Date;
  trial_start: Date | null;
  trial_end: Date | null;
  trial_ended_at: Date | null;
  payment_retry_requested: boolean;
  missing_payment_method: 'cancel' | 'pause';
  paused: boolean;
  cancel_at_period_end: boolean;
  cancellation_reason: string | null;
  canceled_at: Date | null;
  ended_at: Date | null;
  pending_price_id: string | null;
  proration_amount: number;
  coupon_id: string | null;
  discount_period_index: number | null;
  discount_start: Date | null;
  dunning_retry_days: number[];
  dunning_end_state: DunningEndState;
  payment_failed_at: Date | null;
  /** Issue a krafa when card retries run out; null: the merchant's default (decision 0105). */
  claim_fallback: boolean | null;
  /** The krafa collecting the open renewal since its card retries ran out, while it is waited for. */
  dunning_claim_id: string | null;
  metadata: Record<string, string>;
  created_at: Date;
  updated_at: Date;
}

export type NewSubscription = Omit<SubscriptionRow, 'merchant_id' | 'livemode' | 'created_at' | 'updated_at'>;

export function createSubscriptionRepository(db: Db) {
  const scoped = (scope: Scope, trx: Db) =>
    trx<SubscriptionRow>('subscriptions').where({ merchant_id: scope.merchantId, livemode: scope.livemode });

  return {
    async create(scope: Scope, input: NewSubscription, trx: Db = db): Promise<SubscriptionRow> {
      const [row] = await trx<SubscriptionRow>('subscriptions')
        .insert({ ...input, merchant_id: scope.merchantId, livemode: scope.livemode })
        .returning('*');
      return row!;
    },

    async findById(scope: Scope, id: string, trx: Db = db): Promise<SubscriptionRow | undefined> {
      return scoped(scope, trx).where({ id }).first();
    },

    /** The row locked for a change: API updates, workflow steps and batch finishes queue here. */
    async lock(scope: Scope, id: string, trx: Db): Promise<SubscriptionRow | undefined> {
      return scoped(scope, trx).where({ id }).forUpdate().first();
    },

    existsInOtherMode: (scope: Scope, id: string, trx: Db = db) =>
      existsInOtherMode(trx, 'subscriptions', scope, id),

    async list(
      scope: Scope,
      opts: PageOptions & { customerId?: string; status?: SubscriptionStatus; priceId?: string },
      trx: Db = db,
    ): Promise<{ data: SubscriptionRow[]; hasMore: boolean }> {
      const q = scoped(scope, trx);
      if (opts.customerId !== undefined) q.where({ customer_id: opts.customerId });
      if (opts.status !== undefined) q.where({ status: opts.status });
      if (opts.priceId !== undefined) q.where({ price_id: opts.priceId });
      return pageByCreated<SubscriptionRow>(q, 'subscriptions', scope, opts);
    },

    async update(
      scope: Scope,
      id: string,
      patch: Partial<Omit<SubscriptionRow, 'id' | 'merchant_id' | 'livemode'>>,
      trx: Db = db,
    ): Promise<SubscriptionRow> {
      const [row] = await scoped(scope, trx)
        .where({ id })
        .update({ ...patch, updated_at: trx.fn.now() })
        .returning('*');
      return row!;
    },

    /** Ends every live subscription bound to a deleted test clock, at the clock's time. */
    async cancelAllOnClock(testClockId: string, at: Date, trx: Db = db): Promise<void> {
      await trx('subscriptions')
        .where({ test_clock_id: testClockId })
        .whereNotIn('status', ['canceled', 'incomplete_expired'])
        .update({ status: 'canceled', canceled_at: at, ended_at: at });
    },
  };
}

export type SubscriptionRepository = ReturnType<typeof createSubscriptionRepository>;
