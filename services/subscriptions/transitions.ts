import type { Knex } from '../../db/knex';
import type { Scope } from '../../domain/scope';
import { createSubscriptionRepository, type SubscriptionRow } from '../../db/subscriptions';
import { recordEvents, type BatchEvent } from '../../db/event-batch';
import { moveToChargedPeriods } from '../../db/subscription-periods';
import type { FinishedRenewal, RenewalSource } from '../../db/renewals';
import type { ChargeReason } from '../billing/charge-reason';
import type { RenewalFields } from './renewal-object';
import { presentSubscription, presentSubscriptionWithRenewal } from './subscription-object';

// Every change of a subscription's state is written here: the API's cancel and update, each step
// of the lifecycle workflow, and the move of a charged page. Each path keeps exactly the columns
// and the event it has always written; where two paths differ (a cancel by the API clears the
// failure time but not the dunning krafa, one at the period end sets no reason and ends at the
// period's end), the difference is a parameter here, not a second copy.

export type SubscriptionPatch = Partial<Omit<SubscriptionRow, 'id' | 'merchant_id' | 'livemode'>>;

/** A change of one subscription: its columns, the event written with it, the renewal it concerns. */
export interface Transition {
  /** The columns that change; null leaves the row as it is (not even `updated_at` moves). */
  patch: SubscriptionPatch | null;
  /** The `subscription.*` event written in the same transaction; null: none. */
  event: string | null;
  /** The renewal the event's data carries as `latest_renewal`. */
  renewal?: RenewalFields | undefined;
}

/**
 * Canceled at `at`. `endedAt`: the period's end for a cancel at period end. `reason`: written when
 * given (a cancel at period end keeps the one its request set). `clearFailure` and
 * `clearDunningClaim`: a cancel that ends dunning (or a cancel by the API) is no longer failing.
 */
export function canceled(
  at: Date,
  how: { endedAt?: Date; reason?: string | null; clearFailure?: boolean; clearDunningClaim?: boolean } = {},
): Transition {
  const patch: SubscriptionPatch = { status: 'canceled', canceled_at: at, ended_at: how.endedAt ?? at };
  if (how.clearFailure) patch.payment_failed_at = null;
  if (how.clearDunningClaim) patch.dunning_claim_id = null;
  if (how.reason !== undefined) patch.cancellation_reason = how.reason;
  return { patch, event: 'subscription.canceled' };
}

/** A change the API asked for (price, quantity, card, coupon, ...): always written, even if empty. */
export const updated = (patch: SubscriptionPatch): Transition => ({ patch, event: 'subscription.updated' });

/**
 * The end state after dunning (decision 0045), and after a krafa that ended unpaid (decision 0105):
 * `dunning.end_state`, canceled by default.
 */
export function endState(row: SubscriptionRow, at: Date): Transition {
  if (row.dunning_end_state === 'canceled')
    return canceled(at, { clearFailure: true, clearDunningClaim: true, reason: 'payment_failed' });
  return updated({ status: row.dunning_end_state, payment_failed_at: null, dunning_claim_id: null });
}

export const trialEnded = (at: Date): Transition => ({
  patch: { trial_ended_at: at },
  event: 'subscription.trial_ended',
});

/** A trial that ended without a payment method, for a subscription set to pause then. */
export const pausedWithoutPaymentMethod = (): Transition => updated({ status: 'unpaid', paused: true });

/** A first payment that never succeeded. */
export const incompleteExpired = (at: Date): Transition =>
  updated({ status: 'incomplete_expired', ended_at: at });

/** Card retries ran out and a krafa for the renewal was sent: past_due while it is open. */
export const awaitingDunningClaim = (claimId: string): Transition => updated({ dunning_claim_id: claimId });

/** The krafa of a renewal whose card retries ran out was paid. */
export const recoveredByClaim = (renewal: RenewalFields | undefined): Transition => ({
  patch: {
    status: 'active',
    payment_failed_at: null,
    dunning_claim_id: null,
    payment_retry_requested: false,
  },
  event: 'subscription.payment_recovered',
  renewal,
});

/** Nothing changes and nothing is written (the step goes on elsewhere, as to a charge). */
export const unchanged = (): Transition => ({ patch: null, event: null });

/** What applying a transition came to: no such subscription, nothing due, or the row as changed. */
export type Applied<T extends Transition> =
  | { outcome: 'missing' }
  | { outcome: 'skipped' }
  | { outcome: 'applied'; row: SubscriptionRow; transition: T };

/**
 * Applies transitions of one subscription: locks the row (API updates, workflow steps and batch
 * finishes queue on it), asks `decide` what changes (null: nothing is due, as a retried workflow
 * step finds), writes the change and its event in one transaction, and wakes the channels after
 * commit. `decide` may throw to refuse; nothing is written then.
 */
export function createTransitions(deps: {
  knex: Knex;
  wakeChannels: (channelIds: string[]) => Promise<void>;
}) {
  const subscriptions = createSubscriptionRepository(deps.knex);
  return {
    async apply<T extends Transition>(
      scope: Scope,
      id: string,
      decide: (row: SubscriptionRow, trx: Knex.Transaction) => Promise<T | null> | T | null,
    ): Promise<Applied<T>> {
      const done = await deps.knex.transaction(async (trx) => {
        const row = await subscriptions.lock(scope, id, trx);
        if (!row) return { applied: { outcome: 'missing' } as Applied<T>, channels: [] as string[] };
        const decided = await decide(row, trx);
        if (decided === null)
          return { applied: { outcome: 'skipped' } as Applied<T>, channels: [] as string[] };
        const changed =
          decided.patch === null ? row : await subscriptions.update(scope, row.id, decided.patch, trx);
        const data = decided.renewal
          ? presentSubscriptionWithRenewal(changed, decided.renewal)
          : presentSubscription(changed);
        const events: BatchEvent[] = decided.event === null ? [] : [{ ...scope, type: decided.event, data }];
        const applied: Applied<T> = { outcome: 'applied', row: changed, transition: decided };
        return { applied, channels: await recordEvents(trx, events) };
      });
      if (done.channels.length > 0) await deps.wakeChannels(done.channels);
      return done.applied;
    },
  };
}

export type Transitions = ReturnType<typeof createTransitions>;

/**
 * The subscriptions bound to a deleted test clock are canceled at the clock's time, in one
 * statement and without events (decision 0044).
 */
export async function cancelAllOnClock(trx: Knex.Transaction, testClockId: string, at: Date): Promise<void> {
  await createSubscriptionRepository(trx).cancelAllOnClock(testClockId, at, trx);
}

/**
 * Moves each subscription of a charged page to the period it was just charged for, in one
 * statement: active when paid, past_due (or still incomplete for a first charge) when not; a
 * pending price takes effect.
 */
export async function moveChargedSubscriptions(
  trx: Knex.Transaction,
  moved: readonly FinishedRenewal[],
  sources: ReadonlyMap<string, RenewalSource>,
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
