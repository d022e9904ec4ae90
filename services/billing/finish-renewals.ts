import type { Knex } from '../../db/knex';
import { isEnded } from '../../domain/subscription';
import type {
  FinishedRenewal,
  PendingRenewal,
  RenewalSource,
  createRenewalRepository,
} from '../../db/renewals';
import { recordAcquirerFees, type AcquirerFee } from '../../db/payment-costs';
import { lockForCharge, lockedRows } from '../../db/subscription-periods';
import { createTestClockWaitRepository } from '../../db/test-clock-waits';
import { recordEvents } from '../../db/event-batch';
import { subscriptionWorkflowId } from '../../workflows/contract';
import { presentPaymentIntentsById } from '../payments/payment-intent-events';
import { issueInvoices } from '../invoices/issue';
import { moveChargedSubscriptions } from '../subscriptions/transitions';
import type { ChargeReason, LifecycleRef } from './charge-reason';
import type { ChargedRenewal } from './charge-cards';
import { renewalClaim } from './renewal-claim';
import { renewalEvents } from './renewal-events';

/**
 * The finish step of a page, in one transaction: record the outcomes, move the subscriptions to
 * their charged period, open the krafa of each claim-collected one, write the events and deliveries
 * and issue the invoices. Returns the renewals this call moved (a retry moves none twice), the
 * channels to wake and the lifecycles to notify after commit.
 */
export async function finishRenewals(
  knex: Knex,
  renewals: ReturnType<typeof createRenewalRepository>,
  page: {
    subscriptionIds: string[];
    /** The renewals the charge step found pending. */
    pending: readonly PendingRenewal[];
    outcomes: ChargedRenewal[];
    before: ReadonlyMap<string, RenewalSource>;
    asOf: Date;
    reason: ChargeReason;
  },
): Promise<{ finished: FinishedRenewal[]; channelIds: string[]; lifecycle: LifecycleRef[] }> {
  const { subscriptionIds, pending, outcomes, before, asOf, reason } = page;
  return knex.transaction(async (trx) => {
    // The charge ends under the same lock as a cancel. One in flight when the subscription ended
    // keeps the money it took; one that took none (declined, or a krafa not yet issued) is void.
    const locked = new Map((await lockForCharge(trx, subscriptionIds)).map((s) => [s.id, s] as const));
    const ended = (subscriptionId: string) => isEnded(locked.get(subscriptionId)!.status);
    const owner = new Map(pending.map((p) => [p.id, p.subscription_id]));
    const moved = await renewals.finish(
      trx,
      outcomes.map((o) =>
        o.status !== 'paid' && ended(owner.get(o.id)!) ? { ...o, status: 'void' as const } : o,
      ),
      asOf,
    );
    await recordAcquirerFees(trx, acquirerFeesOf(moved, outcomes, before, asOf));
    const intents = await presentPaymentIntentsById(
      knex,
      moved.flatMap((r) => (r.payment_intent_id ? [r.payment_intent_id] : [])),
      trx,
    );
    const live = moved.filter((r) => !ended(r.subscription_id));
    // Subscriptions that ended while their charge was in flight are presented as their cancel left them.
    const endedRows = new Map(
      (
        await lockedRows(
          trx,
          moved.filter((r) => r.status === 'paid' && ended(r.subscription_id)).map((r) => r.subscription_id),
        )
      ).map((s) => [s.id, s] as const),
    );
    const updated = await moveChargedSubscriptions(trx, live, before, asOf, reason);
    for (const r of live)
      if (r.status === 'awaiting_claim') await renewalClaim(trx, updated.get(r.subscription_id)!, r, asOf);
    const { events, lifecycle } = renewalEvents({
      moved,
      reason,
      asOf,
      ended,
      before,
      updated,
      endedRows,
      intents,
    });
    // Clock-bound workflows about to start must be woken by the clock at this instant.
    const clocked = lifecycle.filter((l) => l.testClockId !== null);
    if (clocked.length > 0)
      await createTestClockWaitRepository(trx).registerWaitsAt(
        asOf,
        clocked.map((l) => ({
          workflowId: subscriptionWorkflowId(l.subscriptionId),
          testClockId: l.testClockId,
        })),
      );
    const channelIds = await recordEvents(trx, events);
    // Last in the transaction: issuing locks the merchants' invoice sequences until commit.
    const paidIntents = moved.flatMap((r) =>
      r.status === 'paid' && r.payment_intent_id ? [r.payment_intent_id] : [],
    );
    channelIds.push(...(await issueInvoices(trx, paidIntents)));
    return { finished: moved, channelIds, lifecycle };
  });
}

/** The acquirer fees of the renewals this call moved to paid, captured at `asOf` like their intents. */
function acquirerFeesOf(
  moved: readonly FinishedRenewal[],
  outcomes: readonly ChargedRenewal[],
  sources: ReadonlyMap<string, Pick<RenewalSource, 'merchant_id' | 'livemode'>>,
  asOf: Date,
): AcquirerFee[] {
  const byId = new Map(outcomes.map((o) => [o.id, o]));
  return moved.flatMap((r) => {
    const o = byId.get(r.id);
    const source = sources.get(r.subscription_id);
    if (r.status !== 'paid' || !o?.authorization || o.acquirerFee === null || !r.payment_intent_id || !source)
      return [];
    return [
      {
        merchantId: source.merchant_id,
        livemode: source.livemode,
        paymentIntentId: r.payment_intent_id,
        authorization: o.authorization,
        amount: o.acquirerFee,
        at: asOf,
      },
    ];
  });
}
