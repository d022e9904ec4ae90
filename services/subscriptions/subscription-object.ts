import { z } from 'zod';
import type { SubscriptionRow } from '../../db/subscriptions';
import { SUBSCRIPTION_STATUSES } from '../../domain/subscription';
import { unix } from '../../domain/unix-time';
import { presentRenewal, RenewalSchema, type RenewalFields } from './renewal-object';

// The subscription object: the API response and the data of every `subscription.*` event come from
// presentSubscription (id first, spec §6.2).

export const SubscriptionSchema = z.object({
  id: z.string(),
  object: z.literal('subscription'),
  livemode: z.boolean(),
  customer: z.string(),
  status: z.enum(SUBSCRIPTION_STATUSES),
  price: z.string(),
  quantity: z.number(),
  default_payment_method: z.string().nullable(),
  collection_method: z.enum(['charge_automatically', 'claim']),
  billing_cycle_anchor: z.number(),
  current_period_start: z.number(),
  current_period_end: z.number(),
  trial_start: z.number().nullable(),
  trial_end: z.number().nullable(),
  trial_settings: z.object({
    end_behavior: z.object({ missing_payment_method: z.enum(['cancel', 'pause']) }),
  }),
  paused: z.boolean(),
  cancel_at_period_end: z.boolean(),
  canceled_at: z.number().nullable(),
  ended_at: z.number().nullable(),
  cancellation_details: z.object({ reason: z.string().nullable() }),
  pending_update: z.object({ price: z.string() }).nullable(),
  proration_amount: z.number().describe('Owed (or credited, negative) on the next renewal'),
  discount: z.object({ coupon: z.string(), start: z.number().nullable() }).nullable(),
  dunning: z.object({
    retry_days: z.array(z.number()),
    end_state: z.enum(['canceled', 'unpaid', 'past_due']),
    payment_failed_at: z.number().nullable(),
    claim_fallback: z
      .boolean()
      .nullable()
      .describe(
        "When card retries run out, issue a krafa for the renewal before the end state; null: the merchant's default",
      ),
    claim: z
      .string()
      .nullable()
      .describe(
        'The krafa collecting the renewal since card retries ran out, while the subscription waits for it',
      ),
  }),
  test_clock: z.string().nullable(),
  metadata: z.record(z.string(), z.string()),
  created_at: z.number(),
});

/** The data of an event a charge caused: the subscription and the renewal just billed. */
export const SubscriptionWithRenewalSchema = SubscriptionSchema.extend({ latest_renewal: RenewalSchema });

export function presentSubscription(row: SubscriptionRow) {
  return {
    id: row.id,
    object: 'subscription' as const,
    livemode: row.livemode,
    customer: row.customer_id,
    status: row.status,
    price: row.price_id,
    quantity: row.quantity,
    default_payment_method: row.payment_method_id,
    collection_method: row.collection_method,
    billing_cycle_anchor: unix(row.billing_cycle_anchor),
    current_period_start: unix(row.current_period_start),
    current_period_end: unix(row.current_period_end),
    trial_start: unix(row.trial_start),
    trial_end: unix(row.trial_end),
    trial_settings: { end_behavior: { missing_payment_method: row.missing_payment_method } },
    paused: row.paused,
    cancel_at_period_end: row.cancel_at_period_end,
    canceled_at: unix(row.canceled_at),
    ended_at: unix(row.ended_at),
    cancellation_details: { reason: row.cancellation_reason },
    pending_update: row.pending_price_id === null ? null : { price: row.pending_price_id },
    proration_amount: Number(row.proration_amount),
    discount: row.coupon_id === null ? null : { coupon: row.coupon_id, start: unix(row.discount_start) },
    dunning: {
      retry_days: row.dunning_retry_days,
      end_state: row.dunning_end_state,
      payment_failed_at: unix(row.payment_failed_at),
      claim_fallback: row.claim_fallback,
      claim: row.dunning_claim_id,
    },
    test_clock: row.test_clock_id,
    metadata: row.metadata,
    created_at: unix(row.created_at),
  };
}

export type Subscription = ReturnType<typeof presentSubscription>;

/** `subscription.renewed`, `.activated`, `.payment_failed`, ...: the subscription and its renewal. */
export function presentSubscriptionWithRenewal(row: SubscriptionRow, renewal: RenewalFields) {
  return { ...presentSubscription(row), latest_renewal: presentRenewal(renewal) };
}
