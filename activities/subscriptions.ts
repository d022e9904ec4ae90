import type { LifecycleState } from '../domain/subscription-lifecycle';
import type { LifecycleSteps, SubscriptionRef } from '../services/subscriptions/lifecycle-steps';
import type { ClockAdvance } from '../services/test-clocks/clock-advance';

export type { SubscriptionRef } from '../services/subscriptions/lifecycle-steps';

/**
 * The subscription workflow's steps that are not charges (services/subscriptions/lifecycle-steps.ts,
 * each a transition of services/subscriptions/transitions.ts), its fresh reads, and its waits on a
 * test clock. Each step is a no-op when retried after it was done.
 */
export function createSubscriptionActivities(deps: {
  loadLifecycle: (ref: SubscriptionRef) => Promise<LifecycleState | null>;
  steps: LifecycleSteps;
  clock: Pick<ClockAdvance, 'registerWait' | 'clearWait'>;
}) {
  const { steps } = deps;
  return {
    /** The subscription's lifecycle state, read fresh. */
    loadLifecycle: (ref: SubscriptionRef): Promise<LifecycleState | null> => deps.loadLifecycle(ref),

    /** Ends the trial once; answers what the workflow does next (`charge`, `paused`, `canceled`). */
    endTrial: (ref: SubscriptionRef & { at: number }): Promise<string> => steps.endTrial(ref),

    /** After the last failed retry: a krafa (`claim`) or the configured end state. Once. */
    finishDunning: (ref: SubscriptionRef & { at: number }): Promise<string> => steps.finishDunning(ref),

    /** The krafa of a renewal whose card retries ran out was paid: active again. */
    recoverByClaim: (ref: SubscriptionRef & { at: number }): Promise<string> => steps.recoverByClaim(ref),

    /** A krafa of an active claim-collected subscription ended unpaid: the configured end state. */
    endForUnpaidClaim: (ref: SubscriptionRef & { at: number }): Promise<string> =>
      steps.endForUnpaidClaim(ref),

    /** Cancels a subscription flagged cancel_at_period_end once its period has ended. */
    cancelAtPeriodEnd: (ref: SubscriptionRef & { at: number }): Promise<string> =>
      steps.cancelAtPeriodEnd(ref),

    /** A first payment that never succeeded: incomplete_expired after 23 hours. */
    expireIncomplete: (ref: SubscriptionRef & { at: number }): Promise<string> => steps.expireIncomplete(ref),

    /**
     * Records when a clock-bound workflow wants to be woken and returns the clock's time now (null:
     * no such clock); a workflow whose wait the clock already passed goes on at once.
     */
    registerClockWait: (input: {
      workflowId: string;
      testClockId: string;
      dueAt: number;
    }): Promise<number | null> => deps.clock.registerWait(input),

    clearClockWait: (input: { workflowId: string }): Promise<void> => deps.clock.clearWait(input),
  };
}

export type SubscriptionActivities = ReturnType<typeof createSubscriptionActivities>;
