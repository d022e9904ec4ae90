import {
  allHandlersFinished,
  ApplicationFailure,
  condition,
  continueAsNew,
  proxyActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { createBillingActivities } from '../activities/billing';
import type { createSubscriptionActivities } from '../activities/subscriptions';
import { nextLifecycleStep, type LifecycleStep } from '../domain/subscription-lifecycle';
import { workflowTime, type BoundClock } from './time';
import { ADAPTER_REFUSALS, FailureType, lifecycleQuery, subscriptionChangedSignal } from './contract';

type BillingActivities = ReturnType<typeof createBillingActivities>;
type SubscriptionActivities = ReturnType<typeof createSubscriptionActivities>;

// Reads and bookkeeping: quick, harmless to repeat, retried while the database is away.
const { loadLifecycle, registerClockWait, clearClockWait } = proxyActivities<SubscriptionActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
});

// State changes: each locks the row and checks it is still due, so a retry is a no-op.
const { endTrial, finishDunning, cancelAtPeriodEnd, expireIncomplete, recoverByClaim, endForUnpaidClaim } =
  proxyActivities<SubscriptionActivities>({
    startToCloseTimeout: '1 minute',
    retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
  });

// Money movement: keyed by {sub_id}:{period_start}:{attempt} at the acquirer and unique per period
// in Postgres. A refused card is an outcome, not an error; bad input is never retried.
const { chargeSubscription } = proxyActivities<BillingActivities>({
  startToCloseTimeout: '2 minutes',
  retry: {
    initialInterval: '2 seconds',
    maximumInterval: '1 minute',
    nonRetryableErrorTypes: [...ADAPTER_REFUSALS],
  },
});

export interface SubscriptionWorkflowInput {
  merchantId: string;
  livemode: boolean;
  subscriptionId: string;
  /** Set when the customer is bound to a test clock. */
  clock: BoundClock | null;
}

const STEPS_PER_RUN = 100;

/**
 * The lifecycle of one subscription (`subscription/{sub_id}`): first charge, trial end, dunning
 * and the krafa that may follow it, cancel at period end. Postgres holds the state; each round
 * reads it, asks the pure `nextLifecycleStep` what is due, sleeps until then through the time
 * helper, and acts. It ends when nothing is left that a billing run cannot do alone, and is started
 * again when that changes.
 */
export async function subscriptionLifecycle(input: SubscriptionWorkflowInput): Promise<string> {
  const ref = {
    merchantId: input.merchantId,
    livemode: input.livemode,
    subscriptionId: input.subscriptionId,
  };
  const workflowId = workflowInfo().workflowId;
  let changed = false;
  let last: LifecycleStep | null = null;
  setHandler(subscriptionChangedSignal, () => {
    changed = true;
  });
  setHandler(lifecycleQuery, () => last);
  const time = workflowTime(input.clock, (at) =>
    registerClockWait({ workflowId, testClockId: input.clock!.id, dueAt: at }),
  );

  for (let round = 0; ; round++) {
    if (round >= STEPS_PER_RUN || workflowInfo().continueAsNewSuggested) {
      time.finish();
      await condition(allHandlersFinished);
      return continueAsNew<typeof subscriptionLifecycle>({
        ...input,
        clock: input.clock && { id: input.clock.id, now: time.now() },
      });
    }
    changed = false;
    const state = await loadLifecycle(ref);
    if (state === null)
      throw ApplicationFailure.nonRetryable(
        `subscription ${ref.subscriptionId} is gone`,
        FailureType.NotFound,
      );
    const step = nextLifecycleStep(state, time.now());
    last = step;
    if (step.action === 'done') {
      if (input.clock) await clearClockWait({ workflowId });
      // A change signalled while this run was deciding to end (say cancel_at_period_end, set just
      // after the first charge) reached this run, not a new one: look again instead of losing it.
      if (changed) continue;
      break;
    }
    if (step.at > time.now()) {
      await time.sleepUntil(step.at, () => changed);
      continue; // re-read: the wait may have been cut short by a change
    }
    const at = time.now();
    switch (step.action) {
      case 'charge_first':
        await chargeSubscription({ subscriptionId: ref.subscriptionId, asOf: at, reason: 'first' });
        break;
      case 'end_trial':
        await endTrial({ ...ref, at });
        break;
      case 'charge_trial_end':
        await chargeSubscription({ subscriptionId: ref.subscriptionId, asOf: at, reason: 'trial_end' });
        break;
      case 'retry':
        await chargeSubscription({ subscriptionId: ref.subscriptionId, asOf: at, reason: 'retry' });
        break;
      case 'finish_dunning':
        await finishDunning({ ...ref, at });
        break;
      case 'cancel_at_period_end':
        await cancelAtPeriodEnd({ ...ref, at });
        break;
      case 'expire_incomplete':
        await expireIncomplete({ ...ref, at });
        break;
      case 'await_claim':
        // Only a wait for the krafa of a renewal whose card retries ran out (decision 0105): look again.
        break;
      case 'recover_by_claim':
        await recoverByClaim({ ...ref, at });
        break;
      case 'end_for_unpaid_claim':
        await endForUnpaidClaim({ ...ref, at });
        break;
    }
  }
  time.finish();
  await condition(allHandlersFinished);
  return last?.action ?? 'done';
}
