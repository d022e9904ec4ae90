import type { NewSubscription } from '../../db/subscriptions';
import type { DunningEndState } from '../../domain/subscription';
import { DEFAULT_RETRY_DAYS } from '../../domain/subscription';
import { newId, ID_PREFIX } from '../../domain/ids';

/** What a sign-up decided, from the API or from a checkout session. */
export interface SignUp {
  /** Given when something was keyed on the id before the row is written (a coupon redemption). */
  id?: string;
  customerId: string;
  priceId: string;
  quantity: number;
  paymentMethodId: string | null;
  collectionMethod: 'charge_automatically' | 'claim';
  testClockId: string | null;
  /** The sign-up instant: the clock's frozen time for a customer bound to a test clock. */
  now: Date;
  trialEnd: Date | null;
  /** Period 0 when it was paid at sign-up (checkout); otherwise the lifecycle takes the first charge. */
  paidPeriod?: { start: Date; end: Date };
  couponId: string | null;
  missingPaymentMethod: 'cancel' | 'pause';
  retryDays?: number[];
  endState?: DunningEndState;
  /** The subscription's own card → krafa fallback; unset: the merchant's default (decision 0105). */
  claimFallback?: boolean | null;
  metadata: Record<string, string>;
}

/**
 * The row of a new subscription: trialing until its trial ends, active when period 0 was paid at
 * sign-up, otherwise incomplete until the lifecycle workflow takes the first charge.
 */
export function newSubscription(s: SignUp): NewSubscription {
  const period = s.trialEnd
    ? {
        status: 'trialing' as const,
        billing_cycle_anchor: s.trialEnd,
        current_period_index: -1,
        current_period_start: s.now,
        current_period_end: s.trialEnd,
      }
    : s.paidPeriod
      ? {
          status: 'active' as const,
          billing_cycle_anchor: s.now,
          current_period_index: 0,
          current_period_start: s.paidPeriod.start,
          current_period_end: s.paidPeriod.end,
        }
      : {
          status: 'incomplete' as const,
          billing_cycle_anchor: s.now,
          current_period_index: -1,
          current_period_start: s.now,
          current_period_end: s.now,
        };
  return {
    id: s.id ?? newId(ID_PREFIX.subscription),
    customer_id: s.customerId,
    price_id: s.priceId,
    quantity: s.quantity,
    payment_method_id: s.paymentMethodId,
    collection_method: s.collectionMethod,
    test_clock_id: s.testClockId,
    ...period,
    trial_start: s.trialEnd ? s.now : null,
    trial_end: s.trialEnd,
    trial_ended_at: null,
    payment_retry_requested: false,
    missing_payment_method: s.missingPaymentMethod,
    paused: false,
    cancel_at_period_end: false,
    cancellation_reason: null,
    canceled_at: null,
    ended_at: null,
    pending_price_id: null,
    proration_amount: 0,
    // The coupon counts its duration from period 0, the first charge (decision 0046).
    coupon_id: s.couponId,
    discount_period_index: s.couponId !== null ? 0 : null,
    discount_start: s.couponId !== null ? s.now : null,
    dunning_retry_days: s.retryDays ?? [...DEFAULT_RETRY_DAYS],
    dunning_end_state: s.endState ?? 'canceled',
    payment_failed_at: null,
    claim_fallback: s.claimFallback ?? null,
    dunning_claim_id: null,
    metadata: s.metadata,
  };
}
