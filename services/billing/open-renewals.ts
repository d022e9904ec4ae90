import type { Knex } from '../../db/knex';
import { isEnded } from '../../domain/subscription';
import type { RenewalSource, createRenewalRepository } from '../../db/renewals';
import { lockForCharge, type LockedSubscription } from '../../db/subscription-periods';
import type { ChargeReason } from './charge-reason';
import { priceNextPeriod } from './price-next-period';

/**
 * The create step of a page, in one transaction: the renewals and payment intents of the periods
 * to charge (idempotent on the unique key), or, for `retry`, the failed ones reopened. A period's
 * renewal is opened only under the subscription's lock and only while it may still be charged:
 * once a cancel has committed, nothing new is charged (decision 0100). Returns every subscription
 * of the page as the charge found it.
 */
export async function openRenewals(
  knex: Knex,
  renewals: ReturnType<typeof createRenewalRepository>,
  subscriptionIds: string[],
  asOf: Date,
  reason: ChargeReason,
): Promise<RenewalSource[]> {
  return knex.transaction(async (trx) => {
    const locked = await lockForCharge(trx, subscriptionIds);
    const open = locked.filter((s) => mayCharge(s, reason, asOf)).map((s) => s.id);
    const sources = await renewals.loadSources(trx, subscriptionIds);
    if (reason === 'retry') await renewals.reopenFailed(trx, open);
    else {
      const meta = new Map(
        sources.map((s) => [
          s.id,
          {
            merchantId: s.merchant_id,
            livemode: s.livemode,
            customerId: s.customer_id,
            paymentMethodId: s.payment_method_id,
            // On a test clock a payment is made at the clock's instant, as it is captured then.
            clockTime: s.test_clock_id === null ? null : asOf,
          },
        ]),
      );
      const opening = new Set(open);
      await renewals.insert(trx, meta, sources.filter((s) => opening.has(s.id)).map(priceNextPeriod));
    }
    return sources;
  });
}

/**
 * Whether a charge may open a period of this (locked) subscription: never once it has ended, and a
 * renewal only while the subscription is still due as the billing run found it.
 */
function mayCharge(s: LockedSubscription, reason: ChargeReason, asOf: Date): boolean {
  if (isEnded(s.status)) return false;
  if (reason !== 'renewal') return true;
  return s.status === 'active' && !s.cancel_at_period_end && s.current_period_end <= asOf;
}
