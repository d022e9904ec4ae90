import { newId, ID_PREFIX } from '../../domain/ids';
import { periodAt } from '../../domain/billing-calendar';
import { priceSubscriptionPeriod } from '../../domain/subscription';
import { vatOf } from '../../domain/vat';
import { couponTerms, type CouponRow } from '../../db/coupons';
import type { NewRenewal, RenewalSource } from '../../db/renewals';

/** The renewal of a subscription's next period: its price, coupon and any proration owed. */
export function priceNextPeriod(s: RenewalSource): NewRenewal {
  const recurrence = { interval: s.recurring_interval, intervalCount: s.recurring_interval_count };
  const index = s.current_period_index + 1;
  const period = periodAt(s.billing_cycle_anchor, recurrence, index);
  const coupon =
    s.coupon === null || s.discount_period_index === null || s.discount_start === null
      ? null
      : {
          terms: couponTerms(s.coupon as CouponRow),
          duration:
            s.coupon.duration === 'repeating'
              ? {
                  duration: 'repeating' as const,
                  months: s.coupon.duration_in_months,
                  periods: s.coupon.duration_in_periods,
                }
              : { duration: s.coupon.duration },
          appliedAtIndex: s.discount_period_index,
          appliedAt: s.discount_start,
        };
  const charge = priceSubscriptionPeriod({
    unitAmount: s.unit_amount,
    quantity: s.quantity,
    vatRate: s.vat_rate,
    productId: s.product_id,
    period: { index, start: period.start },
    coupon,
  });
  // Prorations of mid-period changes settle here; a credit larger than the period carries over.
  const owed = Number(s.proration_amount);
  const proration = Math.max(owed, -charge.amount);
  const amount = charge.amount + proration;
  return {
    id: newId(ID_PREFIX.renewal),
    // A claim's payment intent is made when the claim is paid (one per claim, decision 0064).
    paymentIntentId: amount > 0 && s.collection_method !== 'claim' ? newId(ID_PREFIX.paymentIntent) : null,
    subscriptionId: s.id,
    periodIndex: index,
    periodStart: period.start,
    periodEnd: period.end,
    priceId: s.effective_price_id,
    quantity: s.quantity,
    amountSubtotal: charge.amountSubtotal + proration,
    discountAmount: charge.discountAmount,
    amount,
    vatRate: s.vat_rate,
    vatAmount: proration === 0 ? charge.vatAmount : vatOf(amount, s.vat_rate),
    prorationAmount: proration,
    couponId: s.coupon_id,
  };
}
