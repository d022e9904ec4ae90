import type { DunningEndState, SubscriptionStatus } from './subscription';
import type { ClaimOutcome } from './claim-fallback';
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
  // The fields below are optional: histories recorded before them replay with them absent.
  /** The open renewal can be charged again (its last charge failed); a retry needs it. */
  retryable?: boolean;
  /**
   * The krafa collecting the open renewal since its card retries ran out (decision 0105): its outcome
   * and when it expires unpaid (epoch ms). Null when there is none.
   */
  dunningClaim?: { outcome: ClaimOutcome; expiresAt: number } | null;
  /** A krafa of this claim-collected subscription ended unpaid (expired, cancelled): its end state is due. */
  claimEnded?: boolean;
}

export type LifecycleAction =
  | 'charge_first'
  | 'end_trial'
  | 'charge_trial_end'
  | 'retry'
  | 'finish_dunning'
  | 'cancel_at_period_end'
  | 'expire_incomplete'
  | 'await_claim'
  | 'recover_by_claim'
  | 'end_for_unpaid_claim';

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
      return s.retryRequested && s.hasPaymentMethod && s.retryable !== false
        ? { action: 'retry', at: now }
        : { action: 'done' };
    case 'past_due':
    case 'active': {
      if (s.status === 'past_due' && s.paymentFailedAt !== null) {
        // Card retries ran out and a krafa collects the renewal: its outcome decides (decision 0105).
        if (s.dunningClaim) return claimStep(s.dunningClaim, now);
        if (s.retryRequested && s.hasPaymentMethod) return { action: 'retry', at: now };
        const due = retryDueAt(new Date(s.paymentFailedAt), s.retryDays, s.attempts);
        return due === null ? { action: 'finish_dunning', at: now } : { action: 'retry', at: due.getTime() };
      }
      if (s.status === 'active' && s.claimEnded) return { action: 'end_for_unpaid_claim', at: now };
      if (s.status === 'past_due' && s.retryRequested && s.hasPaymentMethod && s.retryable !== false)
        return { action: 'retry', at: now };
      if (s.cancelAtPeriodEnd) return { action: 'cancel_at_period_end', at: s.currentPeriodEnd };
      return { action: 'done' };
    }
  }
}

const DAY_MS = 86_400_000;

/**
 * Waiting for the krafa of a renewal whose card retries ran out: paid recovers the subscription,
 * ended unpaid finishes dunning (the end state). Open, it waits until the krafa expires (signals of
 * its payment or cancellation cut the wait short); should it still be open then, it looks daily.
 */
function claimStep(claim: { outcome: ClaimOutcome; expiresAt: number }, now: number): LifecycleStep {
  switch (claim.outcome) {
    case 'paid':
      return { action: 'recover_by_claim', at: now };
    case 'ended':
      return { action: 'finish_dunning', at: now };
    case 'open':
      return { action: 'await_claim', at: claim.expiresAt > now ? claim.expiresAt : now + DAY_MS };
  }
}
