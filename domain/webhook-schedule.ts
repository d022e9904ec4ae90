/**
 * When a webhook delivery is attempted (spec §6.4, §8): now, then after a failure 1 min, 5 min,
 * 30 min and 2 h later — five attempts in all. Each delay counts from the end of the failed attempt
 * before it. The schedule is data so tests can run it scaled down; a test pins these values.
 */
export const WEBHOOK_RETRY_DELAYS_MS: readonly number[] = [0, 60_000, 300_000, 1_800_000, 7_200_000];

/** Per-attempt time limit (spec §6.4.1). */
export const WEBHOOK_ATTEMPT_TIMEOUT_MS = 30_000;

/** The schedule divided by `factor`, for tests: `scaledSchedule(1000)` waits 60 ms where production waits 1 min. */
export function scaledSchedule(factor: number, base: readonly number[] = WEBHOOK_RETRY_DELAYS_MS): number[] {
  return base.map((ms) => Math.round(ms / factor));
}

/**
 * The time of the attempt after attempt number `attemptsMade` (1-based) failed at `failedAt`, or
 * null when the schedule is spent and the delivery has failed for good.
 */
export function nextAttemptAt(
  schedule: readonly number[],
  attemptsMade: number,
  failedAt: Date,
): Date | null {
  const delay = schedule[attemptsMade];
  return delay === undefined ? null : new Date(failedAt.getTime() + delay);
}

/** When the service disables a failing channel (decision 0112). */
export interface AutoDisableRule {
  /** At least this many deliveries ended failed in the window, and none succeeded; 0: never. */
  afterFailures: number;
  windowHours: number;
}

/** 20 failed deliveries and not one success in 72 hours (WEBHOOK_DISABLE_AFTER_FAILURES, _WINDOW_HOURS). */
export const DEFAULT_AUTO_DISABLE: AutoDisableRule = { afterFailures: 20, windowHours: 72 };
