import { createHash } from 'node:crypto';
import type { Knex } from '../db/knex';
import { createKeyGuessingRepository } from '../db/key-guessing';
import type { RateLimit } from '../domain/rate-limit';

/** A process records a key's sighting from an address at most this often (decision 0226). */
const REFRESH_MS = 10 * 60_000;
/** How many key-and-address pairs a process remembers; past this it forgets them all and relearns. */
const MEMO_LIMIT = 50_000;
/** How often a process deletes sightings older than the hour, at most. */
const PURGE_EVERY_MS = 10 * 60_000;

/** Whether an API key may be looked up from an address, and if not, for how long. */
export type Admission = { admitted: true } | { admitted: false; retryAfterSeconds: number; limit: RateLimit };

/**
 * Slows API-key guessing (decision 0226). Each attempt with a key not known at the client's address
 * is counted, before its lookup, in the shared rate-limit counters, so every API process sees one
 * count and concurrent guesses each get their own; one that authenticates is taken back, so what
 * stays counted are the failures. Past `limit.max` in a window, a key that has not authenticated
 * from that address in the last hour is refused until the window ends, before it is looked up; a
 * key that has goes on working.
 *
 * The hot path costs nothing: a key this process saw authenticate from the address in the last ten
 * minutes is admitted from memory, and its sighting is recorded in the background. Only a pair this
 * process has not seen lately costs one statement before the lookup.
 */
export function createKeyGuessGuard(deps: {
  knex: Knex;
  limit: RateLimit;
  onBackgroundError?: (err: unknown) => void;
}) {
  const repo = createKeyGuessingRepository(deps.knex);
  const seen = new Map<string, number>();
  /** Pairs whose attempt was counted and whose lookup has not answered yet. */
  const pending = new Set<string>();
  let nextPurge = 0;
  const digestOf = (secret: string) => createHash('sha256').update(secret).digest('hex').slice(0, 32);
  const bucketOf = (address: string) => `key-failures:${address}`;
  const background = (work: Promise<unknown>) =>
    void work.catch((err: unknown) => deps.onBackgroundError?.(err));

  return {
    limit: deps.limit,

    async admit(address: string, secret: string): Promise<Admission> {
      const pair = `${address}|${digestOf(secret)}`;
      const at = seen.get(pair);
      if (at !== undefined && Date.now() - at < REFRESH_MS) return { admitted: true };
      const { known, attempts, resetMs } = await repo.attempt(
        bucketOf(address),
        deps.limit.windowMs,
        address,
        digestOf(secret),
      );
      if (known) return { admitted: true };
      if (attempts <= deps.limit.max) {
        if (pending.size >= MEMO_LIMIT) pending.clear();
        pending.add(pair);
        return { admitted: true };
      }
      return {
        admitted: false,
        retryAfterSeconds: Math.max(1, Math.ceil(resetMs / 1000)),
        limit: deps.limit,
      };
    },

    /** A failed authentication: its attempt stays counted. */
    failed(address: string, secret: string): void {
      pending.delete(`${address}|${digestOf(secret)}`);
    },

    /** Records, in the background and at most every ten minutes per process, that the key authenticated here. */
    succeeded(address: string, secret: string): void {
      const digest = digestOf(secret);
      const pair = `${address}|${digest}`;
      // A key not yet known here that authenticated was no guess: its counted attempt is taken back.
      if (pending.delete(pair)) background(repo.forgive(bucketOf(address), deps.limit.windowMs));
      const at = seen.get(pair);
      const now = Date.now();
      if (at !== undefined && now - at < REFRESH_MS) return;
      if (seen.size >= MEMO_LIMIT) seen.clear();
      seen.set(pair, now);
      background(repo.sighted(address, digest));
      if (now >= nextPurge) {
        nextPurge = now + PURGE_EVERY_MS;
        background(repo.purgeOld());
      }
    },
  };
}

export type KeyGuessGuard = ReturnType<typeof createKeyGuessGuard>;
