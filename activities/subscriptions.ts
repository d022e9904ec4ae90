import type { Knex } from '../db/knex';
import type { Scope } from '../domain/scope';
import type { LifecycleState } from '../domain/subscription-lifecycle';
import { createSubscriptionRepository, type SubscriptionRow } from '../db/subscriptions';
import {
  presentSubscription,
  presentSubscriptionWithRenewal,
} from '../services/subscriptions/subscription-object';
import { recordEvents, type BatchEvent } from '../db/event-batch';
import { createSubscriptionLifecycleRepository } from '../db/subscription-lifecycle';
import { createTestClockWaitRepository } from '../db/test-clock-waits';
import { createClaimRepository } from '../db/claims';
import type { RenewalFields } from '../services/subscriptions/renewal-object';
import { issueFallbackClaim } from '../services/subscriptions/claim-fallback';
import { claimExpiresAt, claimOutcomeOf } from '../domain/claim-fallback';

export interface SubscriptionActivityDeps {
  knex: Knex;
  wakeChannels: (channelIds: string[]) => Promise<void>;
  /**
   * Starts the claim batch that issues a krafa at once (engine/claim-batch-starter.ts); unset or
   * failing, the scheduled batch issues it within a minute.
   */
  issueClaims?: (livemode: boolean, batch: string) => Promise<void>;
}

/** What a lifecycle step changes, the event it writes (with the renewal it concerns, if any). */
interface StepChange {
  patch: Partial<SubscriptionRow>;
  event: string | null;
  result: string;
  renewal?: RenewalFields | undefined;
}

/**
 * The end state after dunning (decision 0045), and after a krafa that ended unpaid (decision 0105):
 * `dunning.end_state`, canceled by default.
 */
function endState(row: SubscriptionRow, at: Date): StepChange {
  if (row.dunning_end_state === 'canceled')
    return {
      patch: {
        status: 'canceled',
        canceled_at: at,
        ended_at: at,
        payment_failed_at: null,
        dunning_claim_id: null,
        cancellation_reason: 'payment_failed',
      },
      event: 'subscription.canceled',
      result: 'canceled',
    };
  return {
    patch: { status: row.dunning_end_state, payment_failed_at: null, dunning_claim_id: null },
    event: 'subscription.updated',
    result: row.dunning_end_state,
  };
}

export interface SubscriptionRef {
  merchantId: string;
  livemode: boolean;
  subscriptionId: string;
}

/**
 * The lifecycle steps of one subscription that are not charges. Each locks the row, checks that
 * the step is still due (a retried activity finds it done and does nothing) and writes its event in
 * the same transaction.
 */
export function createSubscriptionActivities(
  deps: Pick<SubscriptionActivityDeps, 'knex' | 'wakeChannels' | 'issueClaims'>,
) {
  const subscriptions = createSubscriptionRepository(deps.knex);
  const lifecycle = createSubscriptionLifecycleRepository(deps.knex);
  const waits = createTestClockWaitRepository(deps.knex);
  const claims = createClaimRepository(deps.knex);

  /**
   * The step's time: the workflow's, or the subscription's test clock's when that is later (a
   * workflow woken by a signal between ticks still holds the clock's time of its last tick).
   */
  async function stepTime(row: SubscriptionRow, at: number, trx: Knex.Transaction): Promise<Date> {
    if (row.test_clock_id === null) return new Date(at);
    const clock = (await waits.frozenTimes([row.test_clock_id], trx)).get(row.test_clock_id);
    return new Date(Math.max(at, clock ?? at));
  }

  async function step(
    ref: SubscriptionRef,
    change: (row: SubscriptionRow, trx: Knex.Transaction) => Promise<StepChange | null> | StepChange | null,
  ): Promise<string> {
    const scope: Scope = { merchantId: ref.merchantId, livemode: ref.livemode };
    const done = await deps.knex.transaction(async (trx) => {
      const row = await subscriptions.lock(scope, ref.subscriptionId, trx);
      if (!row) return { result: 'missing', channels: [] as string[] };
      const decided = await change(row, trx);
      if (decided === null) return { result: 'skipped', channels: [] as string[] };
      const updated =
        Object.keys(decided.patch).length > 0
          ? await subscriptions.update(scope, row.id, decided.patch, trx)
          : row;
      const data = decided.renewal
        ? presentSubscriptionWithRenewal(updated, decided.renewal)
        : presentSubscription(updated);
      const events: BatchEvent[] = decided.event === null ? [] : [{ ...scope, type: decided.event, data }];
      return { result: decided.result, channels: await recordEvents(trx, events) };
    });
    if (done.channels.length > 0) await deps.wakeChannels(done.channels);
    return done.result;
  }

  return {
    /** The subscription's lifecycle state, read fresh. */
    async loadLifecycle(ref: SubscriptionRef): Promise<LifecycleState | null> {
      const row = await subscriptions.findById(
        { merchantId: ref.merchantId, livemode: ref.livemode },
        ref.subscriptionId,
      );
      if (!row) return null;
      const latest = await lifecycle.latestRenewal(row.id);
      const hasPaymentMethod = row.payment_method_id
        ? await lifecycle.isAttached(row.payment_method_id)
        : false;
      const dunningClaim = row.dunning_claim_id
        ? await lifecycle.claimState(row.dunning_claim_id)
        : undefined;
      const claimCollected = row.collection_method === 'claim' && row.status === 'active';
      return {
        status: row.status,
        createdAt: row.created_at.getTime(),
        trialEnd: row.trial_end?.getTime() ?? null,
        trialEnded: row.trial_ended_at !== null,
        paused: row.paused,
        hasPaymentMethod,
        retryRequested: row.payment_retry_requested,
        cancelAtPeriodEnd: row.cancel_at_period_end,
        currentPeriodEnd: row.current_period_end.getTime(),
        paymentFailedAt: row.payment_failed_at?.getTime() ?? null,
        attempts: latest === undefined ? 0 : latest.attempt_count,
        retryDays: row.dunning_retry_days,
        endState: row.dunning_end_state,
        retryable: latest?.status === 'failed',
        dunningClaim: dunningClaim
          ? {
              outcome: claimOutcomeOf(dunningClaim.status, dunningClaim.refused),
              expiresAt: claimExpiresAt(dunningClaim.cancellation_date),
            }
          : null,
        claimEnded: claimCollected ? await lifecycle.hasEndedClaim(row.id) : false,
      };
    },

    /**
     * Ends the trial once: emits subscription.trial_ended, then, without a payment method, cancels
     * or pauses as configured. Answers what the workflow does next.
     */
    async endTrial(ref: SubscriptionRef & { at: number }): Promise<string> {
      const at = new Date(ref.at);
      const first = await step(ref, (row) => {
        if (row.status !== 'trialing' || row.trial_ended_at !== null) return null;
        return { patch: { trial_ended_at: at }, event: 'subscription.trial_ended', result: 'ended' };
      });
      if (first === 'missing') return 'missing';
      return step(ref, async (row, trx) => {
        if (row.status !== 'trialing') return null;
        if (row.payment_method_id && (await lifecycle.isAttached(row.payment_method_id, trx)))
          return { patch: {}, event: null, result: 'charge' };
        if (row.missing_payment_method === 'pause')
          return {
            patch: { status: 'unpaid', paused: true },
            event: 'subscription.updated',
            result: 'paused',
          };
        return {
          patch: {
            status: 'canceled',
            canceled_at: at,
            ended_at: at,
            cancellation_reason: 'trial_missing_payment_method',
          },
          event: 'subscription.canceled',
          result: 'canceled',
        };
      });
    },

    /**
     * After the last failed retry: a krafa for the renewal when the subscription (or its merchant)
     * chose the card → krafa fallback and one can be sent (`claim`: the subscription stays past_due
     * and waits for it, decision 0105); otherwise, or once that krafa ended unpaid, the configured
     * end state. Once.
     */
    async finishDunning(ref: SubscriptionRef & { at: number }): Promise<string> {
      const issue: string[] = [];
      const scope = { merchantId: ref.merchantId, livemode: ref.livemode };
      const result = await step(ref, async (row, trx) => {
        if (row.status !== 'past_due' || row.payment_failed_at === null) return null;
        const at = await stepTime(row, ref.at, trx);
        if (row.dunning_claim_id !== null) {
          const claim = await lifecycle.claimState(row.dunning_claim_id, trx);
          if (claim && claimOutcomeOf(claim.status, claim.refused) !== 'ended') return null;
          // Refused at issuance: closed, so no later batch sends it and no amendment revives it.
          if (claim?.status === 'pending') await claims.cancel(scope, claim.id, 'pending', trx);
          // Ended unpaid: the renewal is failed again, as its card left it (a new card may yet pay it).
          if (claim?.renewal_id)
            await lifecycle.moveRenewal(claim.renewal_id, ['awaiting_claim', 'void'], 'failed', trx);
          return endState(row, at);
        }
        const fallback = await issueFallbackClaim(trx, row, at);
        if ('skipped' in fallback) return endState(row, at);
        issue.push(fallback.claim.id);
        return {
          patch: { dunning_claim_id: fallback.claim.id },
          event: 'subscription.updated',
          result: 'claim',
        };
      });
      // Issued now through a claim batch of its own; the scheduled batch takes it should this fail.
      for (const claimId of issue) await deps.issueClaims?.(ref.livemode, `dunning-${claimId}`);
      return result;
    },

    /** The krafa of a renewal whose card retries ran out was paid: active again, payment_recovered. */
    async recoverByClaim(ref: SubscriptionRef & { at: number }): Promise<string> {
      return step(ref, async (row, trx) => {
        if (row.status !== 'past_due' || row.dunning_claim_id === null) return null;
        const claim = await lifecycle.claimState(row.dunning_claim_id, trx);
        if (!claim?.renewal_id || claimOutcomeOf(claim.status) !== 'paid') return null;
        return {
          patch: {
            status: 'active',
            payment_failed_at: null,
            dunning_claim_id: null,
            payment_retry_requested: false,
          },
          event: 'subscription.payment_recovered',
          renewal: await lifecycle.renewalById(claim.renewal_id, trx),
          result: 'recovered',
        };
      });
    },

    /**
     * A krafa of an active claim-collected subscription ended unpaid (expired or cancelled): the
     * configured end state, as after card retries (decision 0105).
     */
    async endForUnpaidClaim(ref: SubscriptionRef & { at: number }): Promise<string> {
      return step(ref, async (row, trx) => {
        if (row.status !== 'active' || row.collection_method !== 'claim') return null;
        if (!(await lifecycle.hasEndedClaim(row.id, trx))) return null;
        return endState(row, await stepTime(row, ref.at, trx));
      });
    },

    /** Cancels a subscription flagged cancel_at_period_end once its period has ended. */
    async cancelAtPeriodEnd(ref: SubscriptionRef & { at: number }): Promise<string> {
      const at = new Date(ref.at);
      return step(ref, (row) => {
        if (
          !row.cancel_at_period_end ||
          row.status === 'canceled' ||
          row.current_period_end.getTime() > ref.at
        )
          return null;
        return {
          patch: { status: 'canceled', canceled_at: at, ended_at: row.current_period_end },
          event: 'subscription.canceled',
          result: 'canceled',
        };
      });
    },

    /** A first payment that never succeeded: incomplete_expired after 23 hours. */
    async expireIncomplete(ref: SubscriptionRef & { at: number }): Promise<string> {
      return step(ref, (row) => {
        if (row.status !== 'incomplete') return null;
        return {
          patch: { status: 'incomplete_expired', ended_at: new Date(ref.at) },
          event: 'subscription.updated',
          result: 'expired',
        };
      });
    },

    /**
     * Records when a clock-bound workflow wants to be woken (the clock reads it while advancing), and
     * returns the clock's time now: a wait registered after the clock already passed it would get no
     * tick, so the workflow goes on at once instead.
     */
    async registerClockWait(input: {
      workflowId: string;
      testClockId: string;
      dueAt: number;
    }): Promise<number | null> {
      const now = await waits.registerWait({ ...input, dueAt: new Date(input.dueAt) });
      return now?.getTime() ?? null;
    },

    async clearClockWait(input: { workflowId: string }): Promise<void> {
      await waits.clearWait(input.workflowId);
    },
  };
}

export type SubscriptionActivities = ReturnType<typeof createSubscriptionActivities>;
