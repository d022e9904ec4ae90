import type { Knex } from '../db/knex';
import { createRateLimitRepository } from '../db/rate-limits';
import type { RateLimit } from '../domain/rate-limit';

/** Where a bucket stands after counting one request. */
export interface RateLimitState {
  allowed: boolean;
  limit: RateLimit;
  remaining: number;
  /** Whole seconds until the window ends (at least 1): RateLimit-Reset, and Retry-After on a 429. */
  resetSeconds: number;
}

/** How often a process deletes ended windows, at most. */
const PURGE_EVERY_MS = 60_000;

/**
 * The shared rate limiter (decision 0110): counts in PostgreSQL, so limits hold across every API
 * process on the database. Ended windows are purged in the background, once a minute per process.
 */
export function createRateLimiter(deps: { knex: Knex; onPurgeError?: (err: unknown) => void }) {
  const counters = createRateLimitRepository(deps.knex);
  let nextPurge = 0;
  return {
    async take(bucket: string, limit: RateLimit): Promise<RateLimitState> {
      const { hits, resetMs } = await counters.hit(bucket, limit.windowMs);
      if (Date.now() >= nextPurge) {
        nextPurge = Date.now() + PURGE_EVERY_MS;
        counters.purgeExpired().catch((err: unknown) => deps.onPurgeError?.(err));
      }
      return {
        allowed: hits <= limit.max,
        limit,
        remaining: Math.max(0, limit.max - hits),
        resetSeconds: Math.max(1, Math.ceil(resetMs / 1000)),
      };
    },
  };
}

export type RateLimiter = ReturnType<typeof createRateLimiter>;
