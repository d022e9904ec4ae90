import { discountCoversPeriod, priceLines, type CouponDuration, type CouponTerms } from './discount';
import type { VatRate } from './vat';

/** Subscription statuses (Stripe's, without `paused`: a paused trial is `unpaid` with `paused`). */
export const SUBSCRIPTION_STATUSES = [
  'incomplete',
  'incomplete_expired',
  'trialing',
  'active',
  'past_due',
  'unpaid',
  'canceled',
] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

/** Where dunning ends after the last failed retry. */
export type DunningEndState = 'canceled' | 'unpaid' | 'past_due';

/** Default dunning: 4 retries, 1, 3, 7 and 14 days after the first failure. */
export const DEFAULT_RETRY_DAYS: readonly number[] = [1, 3, 7, 14];

/** How long a first payment may stay unpaid before the subscription is incomplete_expired (Stripe: 23 h). */
export const INCOMPLETE_EXPIRY_MS = 23 * 3_600_000;

/** Statuses from which nothing happens any more. */
export function isEnded(status: SubscriptionStatus): boolean {
  return status === 'canceled' || status === 'incomplete_expired';
}

export interface CouponOnSubscription {
  terms: CouponTerms;
  duration: CouponDuration;
  /** The period index the coupon was applied at, and when. */
  appliedAtIndex: number;
  appliedAt: Date;
}

export interface PeriodCharge {
  amountSubtotal: number;
  discountAmount: number;
  amount: number;
  vatAmount: number;
}

/**
 * What one period of a subscription costs: unit amount × quantity (VAT-inclusive), less the coupon
 * when its duration still covers the period (counted from the period it was applied at), and the
 * VAT contained in what is left, for the product's rate. Integer krónur, one half-up rounding each.
 */
export function priceSubscriptionPeriod(input: {
  unitAmount: number;
  quantity: number;
  vatRate: VatRate;
  productId: string;
  period: { index: number; start: Date };
  coupon: CouponOnSubscription | null;
}): PeriodCharge {
  const covers =
    input.coupon !== null &&
    input.period.index >= input.coupon.appliedAtIndex &&
    discountCoversPeriod(
      input.coupon.duration,
      { index: input.period.index - input.coupon.appliedAtIndex, start: input.period.start },
      input.coupon.appliedAt,
    );
  const priced = priceLines(
    [
      {
        productId: input.productId,
        quantity: input.quantity,
        unitAmount: input.unitAmount,
        vatRate: input.vatRate,
      },
    ],
    covers ? input.coupon!.terms : null,
  );
  return {
    amountSubtotal: priced.amountSubtotal,
    discountAmount: priced.discountAmount,
    amount: priced.amount,
    vatAmount: priced.vatAmount,
  };
}

/** When dunning retry `n` (1-based) is due: the first failure plus the schedule's day offset. */
export function retryDueAt(failedAt: Date, retryDays: readonly number[], n: number): Date | null {
  const days = retryDays[n - 1];
  return days === undefined ? null : new Date(failedAt.getTime() + days * 86_400_000);
}
