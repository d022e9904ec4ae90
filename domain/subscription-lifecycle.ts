import type { DunningEndState, SubscriptionStatus } from './subscription';
import { INCOMPLETE_EXPIRY_MS, retryDueAt } from './subscription';

/** What the lifecycle workflow needs to know of a subscription, read fresh before every step. */
export interface LifecycleState {
  status: SubscriptionStatus;
  createdAt: number;
  trialEnd: number | null;
  trialEnded: boolean;
  paused: boolean;
  hasPaymentMethod: boolean;
  retryRequested: boolean;
  cancelAtPeriodEnd: boolean;
  currentPeriodEnd: number;
  /** When the open renewal first failed; null outside dunning. */
  paymentFailedAt: number | null;
  /** Attempts made on the open (latest) renewal; 0 when there is none. */
  attempts: number;
  retryDays: number[];
  endState: DunningEndState;
}

export type LifecycleAction =
  | 'charge_first'
  | 'end_trial'
  | 'charge_trial_end'
  | 'retry'
  | 'finish_dunning'
  | 'cancel_at_period_end'
  | 'expire_incomplete';

/** The next step: an action due at `at` (epoch ms), or `done` when the batch can take over. */
export type LifecycleStep = { action: LifecycleAction; at: number } | { action: 'done' };

/**
 * The lifecycle as a pure function of the subscription's state: what happens next and when. The
 * workflow sleeps (through the time helper) until `at`, re-reads the state, and asks again, so a
 * change made meanwhile (new card, cancel, resume) is always seen before acting.
 */
export function nextLifecycleStep(s: LifecycleState, now: number): LifecycleStep {
  switch (s.status) {
    case 'canceled':
    case 'incomplete_expired':
      return { action: 'done' };
    case 'incomplete': {
      if (s.attempts === 0) return { action: 'charge_first', at: now };
      if (s.retryRequested && s.hasPaymentMethod) return { action: 'retry', at: now };
      return { action: 'expire_incomplete', at: s.createdAt + INCOMPLETE_EXPIRY_MS };
    }
    case 'trialing':
      if (!s.trialEnded) return { action: 'end_trial', at: s.trialEnd ?? now };
      return { action: 'charge_trial_end', at: now };
    case 'unpaid':
      if (s.paused) return s.hasPaymentMethod ? { action: 'charge_trial_end', at: now } : { action: 'done' };
      return s.retryRequested && s.hasPaymentMethod ? { action: 'retry', at: now } : { action: 'done' };
    case 'past_due':
    case 'active': {
      if (s.status === 'past_due' && s.paymentFailedAt !== null) {
        if (s.retryRequested && s.hasPaymentMethod) return { action: 'retry', at: now };
        const due = retryDueAt(new Date(s.paymentFailedAt), s.retryDays, s.attempts);
        return due === null ? { action: 'finish_dunning', at: now } : { action: 'retry', at: due.getTime() };
      }
      if (s.status === 'past_due' && s.retryRequested && s.hasPaymentMethod)
        return { action: 'retry', at: now };
      if (s.cancelAtPeriodEnd) return { action: 'cancel_at_period_end', at: s.currentPeriodEnd };
      return { action: 'done' };
    }
  }
}
