import { sqlArgs } from './event-batch';
import type { Knex } from './knex';
import type { SubscriptionRow } from './subscriptions';
import type { CouponRow } from './coupons';
import type { VatRate } from '../domain/vat';
import type { RecurringInterval } from './prices';

/** A subscription as a renewal needs it: its row, the price it renews at, the coupon, the card. */
export interface RenewalSource extends SubscriptionRow {
  effective_price_id: string;
  unit_amount: number;
  recurring_interval: RecurringInterval;
  recurring_interval_count: number;
  product_id: string;
  vat_rate: VatRate;
  coupon: Pick<
    CouponRow,
    | 'percent_off'
    | 'amount_off'
    | 'applies_to_products'
    | 'duration'
    | 'duration_in_months'
    | 'duration_in_periods'
  > | null;
}

export interface NewRenewal {
  id: string;
  paymentIntentId: string | null;
  subscriptionId: string;
  periodIndex: number;
  periodStart: Date;
  periodEnd: Date;
  priceId: string;
  quantity: number;
  amountSubtotal: number;
  discountAmount: number;
  amount: number;
  vatRate: number;
  vatAmount: number;
  prorationAmount: number;
  couponId: string | null;
}

export interface PendingRenewal {
  id: string;
  merchant_id: string;
  livemode: boolean;
  subscription_id: string;
  period_index: number;
  period_start: Date;
  period_end: Date;
  price_id: string;
  amount: number;
  attempt_count: number;
  payment_intent_id: string | null;
  customer_id: string;
  payment_method_id: string | null;
  acquirer_token: string | null;
  collection_method: 'charge_automatically' | 'claim';
}

export interface RenewalOutcome {
  id: string;
  /**
   * `awaiting_claim`: a claim-collected renewal, paid when its claim is (decision 0064). `void`: a
   * charge in flight at a cancel that took no money; its payment intent is canceled (decision 0100).
   */
  status: 'paid' | 'failed' | 'awaiting_claim' | 'void';
  authorization: string | null;
  error: { code: string; decline_code: string | null; message: string } | null;
  fee: number | null;
}

/** A finished renewal as read: its bigint amounts (strings from pg) as numbers. */
export const finishedRenewal = (r: FinishedRenewal): FinishedRenewal => ({
  ...r,
  amount: Number(r.amount),
  amount_subtotal: Number(r.amount_subtotal),
  discount_amount: Number(r.discount_amount),
  vat_amount: Number(r.vat_amount),
  proration_amount: Number(r.proration_amount),
});

export interface FinishedRenewal {
  id: string;
  subscription_id: string;
  period_index: number;
  period_start: Date;
  period_end: Date;
  price_id: string;
  amount: number;
  amount_subtotal: number;
  discount_amount: number;
  vat_amount: number;
  proration_amount: number;
  attempt_count: number;
  payment_intent_id: string | null;
  status: 'paid' | 'failed' | 'awaiting_claim' | 'void';
}

/** A renewal row for a period paid when the subscription began. */
export interface PaidRenewal {
  id: string;
  merchant_id: string;
  livemode: boolean;
  subscription_id: string;
  period_index: number;
  period_start: Date;
  period_end: Date;
  price_id: string;
  quantity: number;
  amount_subtotal: number;
  discount_amount: number;
  amount: number;
  vat_rate: VatRate;
  vat_amount: number;
  proration_amount: number;
  coupon_id: string | null;
  status: 'paid';
  attempt_count: number;
  payment_intent_id: string | null;
  paid_at: Date;
}

/**
 * Set-based SQL of billing: every statement covers a whole page of subscriptions. The unique key
 * (subscription_id, period_start) makes creating a period's renewal idempotent; finishing only
 * moves renewals out of `pending`, so whoever finishes one first is the only one to write its events.
 */
export function createRenewalRepository() {
  return {
    /** Due subscriptions of a lane, oldest due first: at most `limit` ids. */
    async findDue(
      trx: Knex,
      input: {
        livemode: boolean;
        asOf: Date;
        testClockId: string | null;
        lane: number;
        lanes: number;
        limit: number;
      },
    ): Promise<string[]> {
      const clock = input.testClockId === null ? 'test_clock_id is null' : 'test_clock_id = ?';
      const result = await trx.raw<{ rows: { id: string }[] }>(
        `select id from subscriptions
          where livemode = ? and status = 'active' and not cancel_at_period_end and current_period_end <= ?
            and ${clock} and (? = 1 or (hashtext(id) & 2147483647) % ? = ?)
          order by current_period_end, id
          limit ?`,
        sqlArgs(
          ...[
            input.livemode,
            input.asOf,
            ...(input.testClockId === null ? [] : [input.testClockId]),
            input.lanes,
            input.lanes,
            input.lane,
            input.limit,
          ],
        ),
      );
      return result.rows.map((r) => r.id);
    },

    /** The subscriptions with what pricing their next period needs, in one query. */
    async loadSources(trx: Knex, ids: readonly string[]): Promise<RenewalSource[]> {
      const result = await trx.raw<{ rows: (RenewalSource & Record<string, unknown>)[] }>(
        `select s.*, p.id as effective_price_id, p.unit_amount, p.recurring_interval, p.recurring_interval_count,
                p.product_id, pr.vat_rate,
                case when c.id is null then null else json_build_object(
                  'percent_off', c.percent_off::text, 'amount_off', c.amount_off,
                  'applies_to_products', c.applies_to_products, 'duration', c.duration,
                  'duration_in_months', c.duration_in_months, 'duration_in_periods', c.duration_in_periods)
                end as coupon
           from subscriptions s
           join prices p on p.id = coalesce(s.pending_price_id, s.price_id)
           join products pr on pr.id = p.product_id
           left join coupons c on c.id = s.coupon_id
          where s.id = any(?::text[])`,
        sqlArgs(...[ids]),
      );
      return result.rows.map((r) => ({
        ...r,
        unit_amount: Number(r.unit_amount),
        coupon:
          r.coupon === null
            ? null
            : { ...r.coupon, amount_off: r.coupon.amount_off === null ? null : Number(r.coupon.amount_off) },
      }));
    },

    /**
     * Creates renewals and, for those with something to charge, their payment intents (status
     * processing), in one statement each. A renewal that exists already is left alone. Both are
     * made at `clockTime` for a subscription on a test clock (the clock's instant), else now.
     */
    async insert(
      trx: Knex.Transaction,
      merchantOf: Map<
        string,
        {
          merchantId: string;
          livemode: boolean;
          customerId: string;
          paymentMethodId: string | null;
          clockTime: Date | null;
        }
      >,
      rows: readonly NewRenewal[],
    ): Promise<void> {
      if (rows.length === 0) return;
      const col = <T>(f: (r: NewRenewal) => T) => rows.map(f);
      const meta = (r: NewRenewal) => merchantOf.get(r.subscriptionId)!;
      await trx.raw(
        `with input as (
           select * from unnest(?::text[], ?::text[], ?::text[], ?::boolean[], ?::text[], ?::integer[],
             ?::timestamptz[], ?::timestamptz[], ?::text[], ?::integer[], ?::bigint[], ?::bigint[], ?::bigint[],
             ?::integer[], ?::bigint[], ?::bigint[], ?::text[], ?::text[], ?::text[], ?::timestamptz[])
             as t(id, payment_intent_id, merchant_id, livemode, subscription_id, period_index, period_start,
                  period_end, price_id, quantity, amount_subtotal, discount_amount, amount, vat_rate, vat_amount,
                  proration_amount, coupon_id, customer_id, payment_method_id, clock_time)
         ), created as (
           insert into renewals (id, payment_intent_id, merchant_id, livemode, subscription_id, period_index,
             period_start, period_end, price_id, quantity, amount_subtotal, discount_amount, amount, vat_rate,
             vat_amount, proration_amount, coupon_id, status, created_at)
           select id, payment_intent_id, merchant_id, livemode, subscription_id, period_index, period_start,
             period_end, price_id, quantity, amount_subtotal, discount_amount, amount, vat_rate, vat_amount,
             proration_amount, coupon_id, 'pending', coalesce(clock_time, now())
             from input
           on conflict (subscription_id, period_start) do nothing
           returning id
         )
         insert into payment_intents (id, merchant_id, livemode, amount, status, capture_method, channel,
           customer_id, payment_method_id, subscription_id, description, attempt_count, created_at)
         select i.payment_intent_id, i.merchant_id, i.livemode, i.amount, 'processing', 'automatic', 'online',
                i.customer_id, i.payment_method_id, i.subscription_id, 'Subscription renewal', 1,
                coalesce(i.clock_time, now())
           from input i join created c on c.id = i.id
          where i.payment_intent_id is not null`,
        sqlArgs(
          ...[
            col((r) => r.id),
            col((r) => r.paymentIntentId),
            col((r) => meta(r).merchantId),
            col((r) => meta(r).livemode),
            col((r) => r.subscriptionId),
            col((r) => r.periodIndex),
            col((r) => r.periodStart),
            col((r) => r.periodEnd),
            col((r) => r.priceId),
            col((r) => r.quantity),
            col((r) => r.amountSubtotal),
            col((r) => r.discountAmount),
            col((r) => r.amount),
            col((r) => r.vatRate),
            col((r) => r.vatAmount),
            col((r) => r.prorationAmount),
            col((r) => r.couponId),
            col((r) => meta(r).customerId),
            col((r) => meta(r).paymentMethodId),
            col((r) => meta(r).clockTime),
          ],
        ),
      );
    },

    /**
     * Records a period already paid outside a billing run (a subscription checkout's payment is
     * period 0). The unique (subscription, period_start) key holds the period against a second charge.
     */
    async insertPaid(trx: Knex.Transaction, row: PaidRenewal): Promise<void> {
      await trx('renewals').insert(row);
    },

    /** Reopens the latest failed renewal of each subscription for another attempt (dunning retry). */
    async reopenFailed(trx: Knex.Transaction, subscriptionIds: readonly string[]): Promise<void> {
      await trx.raw(
        `with latest as (
           select distinct on (subscription_id) id, payment_intent_id from renewals
            where subscription_id = any(?::text[]) order by subscription_id, period_index desc
         ), reopened as (
           update renewals r set status = 'pending', attempt_count = r.attempt_count + 1, updated_at = now()
             from latest l where r.id = l.id and r.status = 'failed'
           returning r.payment_intent_id
         )
         update payment_intents p set status = 'processing', attempt_count = p.attempt_count + 1, updated_at = now()
           from reopened o where p.id = o.payment_intent_id`,
        sqlArgs(...[subscriptionIds]),
      );
    },

    /**
     * Every pending renewal of these subscriptions, with the card to charge: looked up per subscription
     * through its index whatever the statistics say (decision 0196); `offset 0` keeps the planner from
     * flattening the lateral back into one join, which scanned the whole table on fresh statistics.
     */
    async findPending(trx: Knex, subscriptionIds: readonly string[]): Promise<PendingRenewal[]> {
      const result = await trx.raw<{ rows: PendingRenewal[] }>(
        `select r.id, r.merchant_id, r.livemode, r.subscription_id, r.period_index, r.period_start, r.period_end,
                r.price_id, r.amount, r.attempt_count, r.payment_intent_id, s.customer_id, s.payment_method_id,
                s.collection_method,
                case when pm.detached_at is null then pm.acquirer_token end as acquirer_token
           from unnest(?::text[]) as t(id)
           cross join lateral (
             select * from renewals where subscription_id = t.id and status = 'pending' offset 0) r
           join subscriptions s on s.id = r.subscription_id
           left join payment_methods pm on pm.id = s.payment_method_id`,
        sqlArgs([...new Set(subscriptionIds)]),
      );
      return result.rows.map((r) => ({ ...r, amount: Number(r.amount) }));
    },

    /**
     * Moves renewals from pending to their outcome and their payment intents with them (a void one's
     * intent is canceled); returns only the renewals this call moved, so events are written once
     * whatever retried before.
     */
    async finish(
      trx: Knex.Transaction,
      outcomes: readonly RenewalOutcome[],
      at: Date,
    ): Promise<FinishedRenewal[]> {
      if (outcomes.length === 0) return [];
      // `r.id = any(…)` beside the join: read by primary key whatever the statistics say (decision 0196).
      const result = await trx.raw<{ rows: FinishedRenewal[] }>(
        `with o as (
           select * from unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::bigint[])
             as t(id, status, authorization_id, error, fee)
         ), moved as (
           update renewals r set status = o.status, last_error = o.error::json->>'code',
                  paid_at = case when o.status = 'paid' then ?::timestamptz end, updated_at = now()
             from o where r.id = o.id and r.id = any(?::text[]) and r.status = 'pending'
           returning r.*
         ), intents as (
           update payment_intents p set
                  status = case o.status when 'paid' then 'succeeded' when 'void' then 'canceled'
                                         else 'requires_payment_method' end,
                  amount_captured = case when o.status = 'paid' then p.amount else 0 end,
                  fee_amount = o.fee,
                  captured_at = case when o.status = 'paid' then ?::timestamptz end,
                  canceled_at = case when o.status = 'void' then ?::timestamptz end,
                  cancellation_reason = case when o.status = 'void' then 'abandoned' end,
                  acquirer_authorization = o.authorization_id,
                  last_payment_error = o.error::jsonb,
                  updated_at = now()
             from moved m join o on o.id = m.id
            where p.id = m.payment_intent_id
         )
         select id, subscription_id, period_index, period_start, period_end, price_id, amount, amount_subtotal,
                discount_amount, vat_amount, proration_amount, attempt_count, payment_intent_id, status
           from moved`,
        sqlArgs(
          ...[
            outcomes.map((o) => o.id),
            outcomes.map((o) => o.status),
            outcomes.map((o) => o.authorization),
            outcomes.map((o) => (o.error === null ? null : JSON.stringify(o.error))),
            outcomes.map((o) => o.fee),
            at,
            outcomes.map((o) => o.id),
            at,
            at,
          ],
        ),
      );
      return result.rows.map(finishedRenewal);
    },
  };
}
