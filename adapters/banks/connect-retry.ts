export interface RetryPolicy {
  /** Attempts in total, the first included. */
  attempts: number;
  initialDelayMs: number;
  maxDelayMs: number;
}

/** Four attempts over about 3.5 s: enough to ride out a server restart, short enough for an activity. */
export const DEFAULT_CONNECT_RETRY: RetryPolicy = { attempts: 4, initialDelayMs: 500, maxDelayMs: 8000 };

/** The pause before retry number `retry` (1-based): doubling from the initial delay, capped. */
export function backoffDelay(policy: RetryPolicy, retry: number, random: () => number = Math.random): number {
  const exponential = Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** (retry - 1));
  // Half fixed, half jitter: clients that failed together do not reconnect in lockstep.
  return Math.round(exponential / 2 + (random() * exponential) / 2);
}

/**
 * Runs `attempt` until it succeeds, the policy's attempts are used up, or `isRetryable` says the
 * failure is final (a wrong host key or password never gets better by asking again).
 */
export async function withRetry<T>(
  policy: RetryPolicy,
  attempt: (n: number) => Promise<T>,
  isRetryable: (error: unknown) => boolean,
  sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
): Promise<T> {
  for (let n = 1; ; n++) {
    try {
      return await attempt(n);
    } catch (error) {
      if (n >= policy.attempts || !isRetryable(error)) throw error;
      await sleep(backoffDelay(policy, n));
    }
  }
}
