import type { BatchEvent } from '../../db/event-batch';
import type { FinishedRenewal, RenewalSource } from '../../db/renewals';
import type { SubscriptionRow } from '../../db/subscriptions';
import { presentSubscriptionWithRenewal } from '../subscriptions/subscription-object';
import type { ChargeReason, LifecycleRef } from './charge-reason';

/** What a finished page has moved, as the events of the renewals need it. */
export interface FinishedPage {
  moved: readonly FinishedRenewal[];
  reason: ChargeReason;
  asOf: Date;
  /** Whether the subscription had ended (canceled) when the charge finished. */
  ended: (subscriptionId: string) => boolean;
  /** The subscriptions as the charge found them. */
  before: ReadonlyMap<string, RenewalSource>;
  /** The subscriptions moved to their charged period. */
  updated: ReadonlyMap<string, SubscriptionRow>;
  /** Subscriptions that ended while their charge was in flight, as their cancel left them. */
  endedRows: ReadonlyMap<string, SubscriptionRow>;
  /** The payment intents of the moved renewals, presented. */
  intents: ReadonlyMap<string, Record<string, unknown>>;
}

/**
 * The events of a finished page, in order, and the lifecycles to notify: a renewal that failed
 * hands its subscription to the lifecycle workflow for dunning. Only what this call moved, so a
 * retried page writes nothing twice.
 */
export function renewalEvents(page: FinishedPage): { events: BatchEvent[]; lifecycle: LifecycleRef[] } {
  const { reason, asOf } = page;
  const events: BatchEvent[] = [];
  const lifecycle: LifecycleRef[] = [];
  for (const r of page.moved) {
    const pi = r.payment_intent_id ? page.intents.get(r.payment_intent_id)! : null;
    if (page.ended(r.subscription_id)) {
      // The subscription stays as its cancel left it; the merchant sees the money that moved.
      if (r.status !== 'paid') continue;
      const sub = page.endedRows.get(r.subscription_id)!;
      const scope = { merchantId: sub.merchant_id, livemode: sub.livemode };
      events.push({
        ...scope,
        type: 'subscription.updated',
        data: presentSubscriptionWithRenewal(sub, r),
      });
      if (pi) events.push({ ...scope, type: 'payment_intent.captured', data: pi });
      continue;
    }
    const sub = page.updated.get(r.subscription_id)!;
    const before = page.before.get(r.subscription_id)!;
    const scope = { merchantId: sub.merchant_id, livemode: sub.livemode };
    if (r.status !== 'failed') {
      // A claim-collected period moves on like a paid one; its renewal says awaiting_claim.
      const type =
        reason === 'renewal'
          ? 'subscription.renewed'
          : reason === 'retry' && before.status !== 'incomplete' && before.status !== 'unpaid'
            ? 'subscription.payment_recovered'
            : 'subscription.activated';
      events.push({ ...scope, type, data: presentSubscriptionWithRenewal(sub, r) });
      if (pi) events.push({ ...scope, type: 'payment_intent.captured', data: pi });
    } else {
      const type = reason === 'retry' ? 'subscription.payment_retry_failed' : 'subscription.payment_failed';
      events.push({ ...scope, type, data: presentSubscriptionWithRenewal(sub, r) });
      if (pi) events.push({ ...scope, type: 'payment_intent.failed', data: pi });
      if (reason === 'renewal')
        lifecycle.push({
          ...scope,
          subscriptionId: sub.id,
          testClockId: sub.test_clock_id,
          at: asOf.getTime(),
        });
    }
  }
  return { events, lifecycle };
}
