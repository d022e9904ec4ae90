import type { Knex } from '../../db/knex';
import type { SubscriptionRow } from '../../db/subscriptions';
import { createSubscriptionLifecycleRepository } from '../../db/subscription-lifecycle';
import { createTestClockWaitRepository } from '../../db/test-clock-waits';
import { createClaimRepository } from '../../db/claims';
import { claimOutcomeOf } from '../../domain/claim-fallback';
import { issueFallbackClaim } from './claim-fallback';
import {
  awaitingDunningClaim,
  canceled,
  endState,
  incompleteExpired,
  pausedWithoutPaymentMethod,
  recoveredByClaim,
  trialEnded,
  unchanged,
  type Transition,
  type Transitions,
} from './transitions';

export interface SubscriptionRef {
  merchantId: string;
  livemode: boolean;
  subscriptionId: string;
}

/** A step's transition and what it tells the workflow to do next. */
type Step = Transition & { result: string };

const step = (transition: Transition, result: string): Step => ({ ...transition, result });

/**
 * The lifecycle steps of one subscription that are not charges (the subscription workflow's). Each
 * locks the row, checks that the step is still due (a retried activity finds it done and does
 * nothing: `skipped`) and writes its event in the same transaction. Each answers a word for the
 * workflow: `missing`, `skipped`, or what the step did.
 */
export function createLifecycleSteps(deps: {
  knex: Knex;
  transitions: Transitions;
  /**
   * Starts the claim batch that issues a krafa at once (engine/claim-batch-starter.ts); unset or
   * failing, the scheduled batch issues it within a minute.
   */
  issueClaims?: ((livemode: boolean, batch: string) => Promise<void>) | undefined;
}) {
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

  async function run(
    ref: SubscriptionRef,
    decide: (row: SubscriptionRow, trx: Knex.Transaction) => Promise<Step | null> | Step | null,
  ): Promise<string> {
    const scope = { merchantId: ref.merchantId, livemode: ref.livemode };
    const done = await deps.transitions.apply(scope, ref.subscriptionId, decide);
    return done.outcome === 'applied' ? done.transition.result : done.outcome;
  }

  return {
    /**
     * Ends the trial once: emits subscription.trial_ended, then, without a payment method, cancels
     * or pauses as configured. Answers what the workflow does next.
     */
    async endTrial(ref: SubscriptionRef & { at: number }): Promise<string> {
      const at = new Date(ref.at);
      const first = await run(ref, (row) => {
        if (row.status !== 'trialing' || row.trial_ended_at !== null) return null;
        return step(trialEnded(at), 'ended');
      });
      if (first === 'missing') return 'missing';
      return run(ref, async (row, trx) => {
        if (row.status !== 'trialing') return null;
        if (row.payment_method_id && (await lifecycle.isAttached(row.payment_method_id, trx)))
          return step(unchanged(), 'charge');
        if (row.missing_payment_method === 'pause') return step(pausedWithoutPaymentMethod(), 'paused');
        return step(canceled(at, { reason: 'trial_missing_payment_method' }), 'canceled');
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
      const result = await run(ref, async (row, trx) => {
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
          return endStep(row, at);
        }
        const fallback = await issueFallbackClaim(trx, row, at);
        if ('skipped' in fallback) return endStep(row, at);
        issue.push(fallback.claim.id);
        return step(awaitingDunningClaim(fallback.claim.id), 'claim');
      });
      // Issued now through a claim batch of its own; the scheduled batch takes it should this fail.
      for (const claimId of issue) await deps.issueClaims?.(ref.livemode, `dunning-${claimId}`);
      return result;
    },

    /** The krafa of a renewal whose card retries ran out was paid: active again, payment_recovered. */
    async recoverByClaim(ref: SubscriptionRef & { at: number }): Promise<string> {
      return run(ref, async (row, trx) => {
        if (row.status !== 'past_due' || row.dunning_claim_id === null) return null;
        const claim = await lifecycle.claimState(row.dunning_claim_id, trx);
        if (!claim?.renewal_id || claimOutcomeOf(claim.status) !== 'paid') return null;
        return step(recoveredByClaim(await lifecycle.renewalById(claim.renewal_id, trx)), 'recovered');
      });
    },

    /**
     * A krafa of an active claim-collected subscription ended unpaid (expired or cancelled): the
     * configured end state, as after card retries (decision 0105).
     */
    async endForUnpaidClaim(ref: SubscriptionRef & { at: number }): Promise<string> {
      return run(ref, async (row, trx) => {
        if (row.status !== 'active' || row.collection_method !== 'claim') return null;
        if (!(await lifecycle.hasEndedClaim(row.id, trx))) return null;
        return endStep(row, await stepTime(row, ref.at, trx));
      });
    },

    /** Cancels a subscription flagged cancel_at_period_end once its period has ended. */
    async cancelAtPeriodEnd(ref: SubscriptionRef & { at: number }): Promise<string> {
      const at = new Date(ref.at);
      return run(ref, (row) => {
        if (
          !row.cancel_at_period_end ||
          row.status === 'canceled' ||
          row.current_period_end.getTime() > ref.at
        )
          return null;
        return step(canceled(at, { endedAt: row.current_period_end }), 'canceled');
      });
    },

    /** A first payment that never succeeded: incomplete_expired after 23 hours. */
    async expireIncomplete(ref: SubscriptionRef & { at: number }): Promise<string> {
      return run(ref, (row) => {
        if (row.status !== 'incomplete') return null;
        return step(incompleteExpired(new Date(ref.at)), 'expired');
      });
    },
  };
}

/** The end state as a step: its result is the state (`canceled`, `unpaid`, `past_due`). */
function endStep(row: SubscriptionRow, at: Date): Step {
  return step(endState(row, at), row.dunning_end_state);
}

export type LifecycleSteps = ReturnType<typeof createLifecycleSteps>;
