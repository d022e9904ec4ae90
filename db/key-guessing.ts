import type { Db } from './knex';

/** How long a key's authentication from an address keeps it known there (decision 0226). */
export const SIGHTING_HOURS = 1;

/**
 * What slows API-key guessing (decision 0226): failed authentications per client address, counted
 * in the rate limiter's windows, and where each key last authenticated.
 */
export function createKeyGuessingRepository(db: Db) {
  return {
    /**
     * The failures counted from `address` in the current window, the milliseconds until it ends, and
     * whether the key with `keyDigest` authenticated from there in the last hour. One statement.
     */
    async standing(
      failureBucket: string,
      address: string,
      keyDigest: string,
    ): Promise<{ failures: number; resetMs: number; known: boolean }> {
      const { rows } = await db.raw<{ rows: { failures: number; reset_ms: number; known: boolean }[] }>(
        `select coalesce(sum(c.hits), 0)::int as failures,
                coalesce(greatest(0, extract(epoch from max(c.expires_at) - now()) * 1000), 0)::float8 as reset_ms,
                exists (select 1 from api_key_sightings s
                         where s.address = ? and s.key_digest = ?
                           and s.last_at > now() - ? * interval '1 hour') as known
           from rate_limit_counters c
          where c.bucket = ? and c.expires_at > now()`,
        [address, keyDigest, SIGHTING_HOURS, failureBucket],
      );
      const row = rows[0]!;
      return { failures: row.failures, resetMs: row.reset_ms, known: row.known };
    },

    /** Records that the key authenticated from the address now. */
    async sighted(address: string, keyDigest: string): Promise<void> {
      await db.raw(
        `insert into api_key_sightings (address, key_digest, last_at) values (?, ?, now())
         on conflict (address, key_digest) do update set last_at = excluded.last_at`,
        [address, keyDigest],
      );
    },

    /** Deletes sightings older than the hour they count for. */
    async purgeOld(): Promise<number> {
      const { rowCount } = await db.raw<{ rowCount: number }>(
        `delete from api_key_sightings where last_at < now() - ? * interval '1 hour'`,
        [SIGHTING_HOURS],
      );
      return rowCount;
    },
  };
}
