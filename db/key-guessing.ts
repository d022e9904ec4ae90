import type { Db } from './knex';

/** How long a key's authentication from an address keeps it known there (decision 0226). */
export const SIGHTING_HOURS = 1;

/**
 * What slows API-key guessing (decision 0226): authentication attempts with keys not known at the
 * client's address, counted in the rate limiter's windows (those that succeed are taken back), and
 * where each key last authenticated.
 */
export function createKeyGuessingRepository(db: Db) {
  return {
    /**
     * One authentication attempt with a key from an address, before the key is looked up, in one
     * statement: whether the key authenticated from there in the last hour (then nothing is
     * counted), else the attempt counted in the address's window, with the count so far and the
     * milliseconds until the window ends. Counting before the lookup holds the limit under
     * concurrent attempts: each gets a distinct count, as the rate limiter's requests do.
     */
    async attempt(
      bucket: string,
      windowMs: number,
      address: string,
      keyDigest: string,
    ): Promise<{ known: boolean; attempts: number; resetMs: number }> {
      const { rows } = await db.raw<{
        rows: { known: boolean; hits: number | null; reset_ms: number | null }[];
      }>(
        `with known as (
           select exists (select 1 from api_key_sightings s
                           where s.address = ? and s.key_digest = ?
                             and s.last_at > now() - ? * interval '1 hour') as k),
         hit as (
           insert into rate_limit_counters as c (bucket, window_start, expires_at, hits)
           select ?, w.start, w.start + ? * interval '1 millisecond', 1
             from (select to_timestamp((floor(extract(epoch from now()) * 1000 / ?) * ? / 1000)::float8) as start) w
            where not (select k from known)
           on conflict (bucket, window_start) do update set hits = c.hits + 1
           returning c.hits, greatest(0, extract(epoch from c.expires_at - now()) * 1000)::float8 as reset_ms)
         select (select k from known) as known, (select hits from hit) as hits, (select reset_ms from hit) as reset_ms`,
        [address, keyDigest, SIGHTING_HOURS, bucket, windowMs, windowMs, windowMs],
      );
      const row = rows[0]!;
      return { known: row.known, attempts: row.hits ?? 0, resetMs: row.reset_ms ?? 0 };
    },

    /** Takes back one counted attempt of the current window: it authenticated, it was no guess. */
    async forgive(bucket: string, windowMs: number): Promise<void> {
      await db.raw(
        `update rate_limit_counters set hits = greatest(0, hits - 1)
          where bucket = ?
            and window_start = to_timestamp((floor(extract(epoch from now()) * 1000 / ?) * ? / 1000)::float8)`,
        [bucket, windowMs, windowMs],
      );
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
