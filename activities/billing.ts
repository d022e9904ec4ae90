import type { WorkerMetrics } from '../stack/worker-metrics';
import { heartbeat } from '@temporalio/activity';
import type { Knex } from '../db/knex';
import type { Logger } from '../stack/logger';
import type { CardAcquirer } from '../adapters/acquirers/card-acquirer';
import { AcquirerError, reportedFee } from '../adapters/acquirers/card-acquirer';
import { newId, ID_PREFIX } from '../domain/ids';
import { periodAt } from '../domain/billing-calendar';
import { isEnded, priceSubscriptionPeriod } from '../domain/subscription';
import { cardFee } from '../domain/fees';
import { vatOf } from '../domain/vat';
import { couponTerms } from '../db/coupons';
import type { SubscriptionRow } from '../db/subscriptions';
import { presentSubscriptionWithRenewal } from '../services/subscriptions/subscription-object';
import { recordEvents, type BatchEvent } from '../db/event-batch';
import { presentPaymentIntentsById } from '../services/payments/payment-intent-events';
import {
  createRenewalRepository,
  type FinishedRenewal,
  type NewRenewal,
  type PendingRenewal,
  type RenewalOutcome,
  type RenewalSource,
} from '../db/renewals';
import type { CouponRow } from '../db/coupons';
import { recordAcquirerFees, type AcquirerFee } from '../db/payment-costs';
import {
  claimPartiesOf,
  expireClaims,
  insertRenewalClaim,
  lifecycleRefsOfClaims,
} from '../db/claim-collection';
import {
  lockForCharge,
  lockedRows,
  moveToChargedPeriods,
  type LockedSubscription,
} from '../db/subscription-periods';
import { createTestClockWaitRepository } from '../db/test-clock-waits';
import { subscriptionWorkflowId } from '../workflows/contract';
import { isFinalAdapterError } from './adapter-failure';
import { issueInvoices } from '../services/invoices/issue';

/** Why a period is charged; it decides the events and what a failure means. */
export type ChargeReason = 'renewal' | 'first' | 'trial_end' | 'retry';

/** A subscription whose lifecycle workflow must look at it (after a failed renewal). */
export interface LifecycleRef {
  merchantId: string;
  livemode: boolean;
  subscriptionId: string;
  testClockId: string | null;
  /** The time of the change, epoch ms (clock time for clock-bound subscriptions). */
  at: number;
}

export interface BillingActivityDeps {
  knex: Knex;
  /** The worker's Prometheus metrics; unset: nothing is counted (tests, benchmarks). */
  metrics?: WorkerMetrics;
  log: Logger;
  acquirer: CardAcquirer;
  wakeChannels: (channelIds: string[]) => Promise<void>;
  /** Starts or signals the lifecycle workflow of each subscription (signal-with-start). */
  notifyLifecycle: (refs: LifecycleRef[]) => Promise<void>;
  /** Card authorizations in flight at once per page. */
  chargeConcurrency?: number;
}

export interface ChargeSummary {
  processed: number;
  paid: number;
  failed: number;
}

const renewals = createRenewalRepository();

/** Renewal idempotency key of the architecture: `{sub_id}:{period_start}`. */
export function renewalKey(subscriptionId: string, periodStart: Date): string {
  return `${subscriptionId}:${periodStart.toISOString()}`;
}

function priceNextPeriod(s: RenewalSource): NewRenewal {
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

/** A charge's outcome and the fee the acquirer reported on its capture (decision 0113). */
type ChargedRenewal = RenewalOutcome & { acquirerFee: number | null };

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

/** Counts a finished page: its renewals by outcome, and the card charges that reached the acquirer. */
function countPage(
  metrics: WorkerMetrics | undefined,
  reason: ChargeReason,
  finished: { status: string }[],
  outcomes: ChargedRenewal[],
): void {
  if (!metrics) return;
  for (const r of finished) metrics.renewals.inc({ reason, outcome: r.status });
  for (const o of outcomes)
    if (o.authorization !== null) metrics.charges.inc({ outcome: 'paid' });
    else if (o.status === 'failed' && o.error?.code !== 'payment_method_missing')
      metrics.charges.inc({ outcome: 'failed' });
}

/** Side effects of billing: due pages, single charges, all through one set-based path. */
export function createBillingActivities(
  deps: Pick<
    BillingActivityDeps,
    'knex' | 'log' | 'acquirer' | 'wakeChannels' | 'notifyLifecycle' | 'chargeConcurrency' | 'metrics'
  >,
) {
  const concurrency = deps.chargeConcurrency ?? 64;

  /** One authorization and capture, keyed by business identity and the dunning attempt number. */
  async function chargeOne(r: PendingRenewal): Promise<ChargedRenewal> {
    const failed = (code: string, decline: string | null, message: string): ChargedRenewal => ({
      id: r.id,
      status: 'failed',
      authorization: null,
      error: { code, decline_code: decline, message },
      fee: null,
      acquirerFee: null,
    });
    if (r.amount === 0)
      return { id: r.id, status: 'paid', authorization: null, error: null, fee: 0, acquirerFee: null };
    if (r.collection_method === 'claim')
      return {
        id: r.id,
        status: 'awaiting_claim',
        authorization: null,
        error: null,
        fee: null,
        acquirerFee: null,
      };
    if (r.acquirer_token === null)
      return failed('payment_method_missing', null, 'The subscription has no usable payment method');
    const key = `${renewalKey(r.subscription_id, r.period_start)}:${r.attempt_count}`;
    try {
      const auth = await deps.acquirer.authorize({
        token: r.acquirer_token,
        amount: r.amount,
        currency: 'ISK',
        merchant: r.merchant_id,
        return_url: 'https://invalid.example/off-session',
        idempotency_key: key,
      });
      if (auth.status === 'declined')
        return failed('card_declined', auth.decline_code, 'The card was declined');
      if (auth.status === 'requires_action') {
        await deps.acquirer.void(auth.id, `${key}:void`);
        return failed('authentication_required', null, 'The card requires authentication, off session');
      }
      const captured = await deps.acquirer.capture({
        authorization: auth.id,
        amount: r.amount,
        idempotency_key: `${key}:capture`,
      });
      return {
        id: r.id,
        status: 'paid',
        authorization: captured.id,
        error: null,
        fee: cardFee(r.amount, 'online'),
        acquirerFee: reportedFee(captured),
      };
    } catch (err) {
      // A refusal is an outcome; an outage is thrown so Temporal retries the page with the same keys.
      if (err instanceof AcquirerError && isFinalAdapterError(err))
        return failed(err.code, null, err.message);
      throw err;
    }
  }

  async function chargeAll(pending: PendingRenewal[]): Promise<ChargedRenewal[]> {
    const out: ChargedRenewal[] = [];
    let next = 0;
    const lane = async () => {
      while (next < pending.length) {
        const r = pending[next++]!;
        out.push(await chargeOne(r));
        if (out.length % 50 === 0) heartbeatSafe(out.length);
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, pending.length)) }, lane));
    return out;
  }

  /**
   * Charges the next period (or reopens the failed one, for `retry`) of each subscription. Three
   * steps, each set-based: create the renewals and payment intents (idempotent on the unique key),
   * charge what is pending with bounded concurrency, then in one transaction record the outcomes,
   * move the subscriptions and write the events and deliveries. A crash anywhere is safe to retry.
   */
  async function charge(subscriptionIds: string[], asOf: Date, reason: ChargeReason): Promise<ChargeSummary> {
    if (subscriptionIds.length === 0) return { processed: 0, paid: 0, failed: 0 };
    const t0 = performance.now();
    // A period's renewal is opened only under the subscription's lock and only while it may still
    // be charged: once a cancel has committed, nothing new is charged (decision 0100).
    const sources = await deps.knex.transaction(async (trx) => {
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
    const byId = new Map(sources.map((s) => [s.id, s]));
    const t1 = performance.now();
    const pending = await renewals.findPending(deps.knex, subscriptionIds);
    const outcomes = await chargeAll(pending);
    const t2 = performance.now();

    const { finished, channelIds, lifecycle } = await deps.knex.transaction(async (trx) => {
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
      await recordAcquirerFees(trx, acquirerFeesOf(moved, outcomes, byId, asOf));
      const intents = await presentPaymentIntentsById(
        deps.knex,
        moved.flatMap((r) => (r.payment_intent_id ? [r.payment_intent_id] : [])),
        trx,
      );
      const live = moved.filter((r) => !ended(r.subscription_id));
      // Subscriptions that ended while their charge was in flight are presented as their cancel left them.
      const endedRows = new Map(
        (
          await lockedRows(
            trx,
            moved
              .filter((r) => r.status === 'paid' && ended(r.subscription_id))
              .map((r) => r.subscription_id),
          )
        ).map((s) => [s.id, s] as const),
      );
      const updated = await moveSubscriptions(trx, live, byId, asOf, reason);
      for (const r of live)
        if (r.status === 'awaiting_claim') await renewalClaim(trx, updated.get(r.subscription_id)!, r, asOf);
      const events: BatchEvent[] = [];
      const lifecycleRefs: LifecycleRef[] = [];
      for (const r of moved) {
        const pi = r.payment_intent_id ? intents.get(r.payment_intent_id)! : null;
        if (ended(r.subscription_id)) {
          // The subscription stays as its cancel left it; the merchant sees the money that moved.
          if (r.status !== 'paid') continue;
          const sub = endedRows.get(r.subscription_id)!;
          const scope = { merchantId: sub.merchant_id, livemode: sub.livemode };
          events.push({
            ...scope,
            type: 'subscription.updated',
            data: presentSubscriptionWithRenewal(sub, r),
          });
          if (pi) events.push({ ...scope, type: 'payment_intent.captured', data: pi });
          continue;
        }
        const sub = updated.get(r.subscription_id)!;
        const before = byId.get(r.subscription_id)!;
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
          const type =
            reason === 'retry' ? 'subscription.payment_retry_failed' : 'subscription.payment_failed';
          events.push({ ...scope, type, data: presentSubscriptionWithRenewal(sub, r) });
          if (pi) events.push({ ...scope, type: 'payment_intent.failed', data: pi });
          if (reason === 'renewal')
            lifecycleRefs.push({
              ...scope,
              subscriptionId: sub.id,
              testClockId: sub.test_clock_id,
              at: asOf.getTime(),
            });
        }
      }
      // Clock-bound workflows about to start must be woken by the clock at this instant.
      const clocked = lifecycleRefs.filter((l) => l.testClockId !== null);
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
      return { finished: moved, channelIds, lifecycle: lifecycleRefs };
    });
    const t3 = performance.now();
    if (channelIds.length > 0) await deps.wakeChannels(channelIds);
    if (lifecycle.length > 0) await deps.notifyLifecycle(lifecycle);
    const paid = finished.filter((r) => r.status !== 'failed' && r.status !== 'void').length;
    countPage(deps.metrics, reason, finished, outcomes);
    // The profile of a page: create, charge, finish (the renewal-day benchmark reads these).
    deps.log.info(
      {
        page: subscriptionIds.length,
        createMs: Math.round(t1 - t0),
        chargeMs: Math.round(t2 - t1),
        finishMs: Math.round(t3 - t2),
        notifyMs: Math.round(performance.now() - t3),
      },
      'billing page',
    );
    return { processed: pending.length, paid, failed: finished.length - paid };
  }

  return {
    /**
     * One page of a billing run: the due subscriptions of one lane (at most `limit`), charged
     * together. Renewed ones are no longer due, so the next call finds the next page.
     */
    async renewDuePage(input: {
      livemode: boolean;
      asOf: number;
      testClockId: string | null;
      lane: number;
      lanes: number;
      limit: number;
    }): Promise<ChargeSummary & { more: boolean }> {
      const asOf = new Date(input.asOf);
      // Unpaid claims past their cancellation date expire, on the clock's time for clock-bound ones;
      // the subscriptions they leave unpaid go to their end state (decision 0105).
      if (input.lane === 0) {
        const expired = await expireClaims(deps.knex, asOf, input.testClockId);
        const refs = await lifecycleRefsOfClaims(deps.knex, expired);
        // Logged, not thrown: a retried page finds these kröfur expired already and would not ask again.
        if (refs.length > 0)
          await deps
            .notifyLifecycle(refs.map((r) => ({ ...r, at: asOf.getTime() })))
            .catch((err: unknown) => {
              deps.log.warn(
                { err, subscriptions: refs.map((r) => r.subscriptionId) },
                'subscriptions not signalled',
              );
            });
      }
      const ids = await renewals.findDue(deps.knex, { ...input, asOf });
      const summary = await charge(ids, asOf, 'renewal');
      return { ...summary, more: ids.length === input.limit };
    },

    /** Charges one subscription outside a batch: its first period, the end of its trial, a retry. */
    async chargeSubscription(input: {
      subscriptionId: string;
      asOf: number;
      reason: Exclude<ChargeReason, 'renewal'>;
    }): Promise<'paid' | 'failed' | 'none'> {
      const summary = await charge([input.subscriptionId], new Date(input.asOf), input.reason);
      if (summary.processed === 0) return 'none';
      return summary.paid > 0 ? 'paid' : 'failed';
    },
  };
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

function heartbeatSafe(details: unknown): void {
  try {
    heartbeat(details);
  } catch {
    // Outside an activity context (a direct call from a script): nothing to report to.
  }
}

/**
 * Moves each subscription to the period it was just charged for, in one statement: active when
 * paid, past_due (or still incomplete for a first charge) when not; a pending price takes effect.
 */
async function moveSubscriptions(
  trx: Knex.Transaction,
  moved: FinishedRenewal[],
  sources: Map<string, RenewalSource>,
  asOf: Date,
  reason: ChargeReason,
): Promise<Map<string, SubscriptionRow>> {
  if (moved.length === 0) return new Map();
  const status = (r: FinishedRenewal) => {
    const before = sources.get(r.subscription_id)!.status;
    if (r.status !== 'failed') return 'active';
    if (reason === 'first' || (reason === 'retry' && before === 'incomplete')) return 'incomplete';
    if (reason === 'retry') return before;
    return 'past_due';
  };
  const rows = await moveToChargedPeriods(
    trx,
    moved.map((r) => ({
      subscriptionId: r.subscription_id,
      status: status(r),
      paid: r.status !== 'failed',
      // A failed first charge leaves the subscription before its first period; anything else moves on.
      advance: status(r) !== 'incomplete',
      periodIndex: r.period_index,
      periodStart: r.period_start,
      periodEnd: r.period_end,
      priceId: r.price_id,
      proration: r.proration_amount,
    })),
    asOf,
  );
  return new Map(rows.map((r) => [r.id, r]));
}

/**
 * The krafa collecting a claim-collected renewal (decision 0064): the period's amount from the
 * customer's kennitala, dated from the renewal's time (the test clock's, on a clock) by the
 * merchant default; the claim batch issues it and the claim payments sync marks the renewal paid.
 */
async function renewalClaim(trx: Knex.Transaction, sub: SubscriptionRow, r: FinishedRenewal, asOf: Date) {
  const { merchant, customer } = await claimPartiesOf(trx, sub.merchant_id, sub.customer_id);
  if (!merchant?.kennitala || !customer?.kennitala)
    throw new Error(`subscription ${sub.id} is collected by claim without a claimant or payer kennitala`);
  await insertRenewalClaim(trx, {
    merchantId: sub.merchant_id,
    livemode: sub.livemode,
    subscriptionId: sub.id,
    customerId: sub.customer_id,
    merchant: { ...merchant, kennitala: merchant.kennitala },
    payerKennitala: customer.kennitala,
    renewal: r,
    asOf,
  });
}
