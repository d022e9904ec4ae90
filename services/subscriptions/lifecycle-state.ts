import type { Knex } from '../../db/knex';
import type { LifecycleState } from '../../domain/subscription-lifecycle';
import { createSubscriptionRepository } from '../../db/subscriptions';
import { createSubscriptionLifecycleRepository } from '../../db/subscription-lifecycle';
import { claimExpiresAt, claimOutcomeOf } from '../../domain/claim-fallback';
import type { SubscriptionRef } from './lifecycle-steps';

/** The subscription's lifecycle state, read fresh, for the pure `nextLifecycleStep` to decide on. */
export function createLifecycleState(deps: { knex: Knex }) {
  const subscriptions = createSubscriptionRepository(deps.knex);
  const lifecycle = createSubscriptionLifecycleRepository(deps.knex);
  return async function loadLifecycle(ref: SubscriptionRef): Promise<LifecycleState | null> {
    const row = await subscriptions.findById(
      { merchantId: ref.merchantId, livemode: ref.livemode },
      ref.subscriptionId,
    );
    if (!row) return null;
    const latest = await lifecycle.latestRenewal(row.id);
    const hasPaymentMethod = row.payment_method_id
      ? await lifecycle.isAttached(row.payment_method_id)
      : false;
    const dunningClaim = row.dunning_claim_id ? await lifecycle.claimState(row.dunning_claim_id) : undefined;
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
  };
}
