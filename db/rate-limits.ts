import type { Db } from './knex';

/** Rate-limit counters (decision 0110): fixed windows aligned to the database's clock. */
export function createRateLimitRepository(db: Db) {
  return {
    /**
     * Counts one request in the bucket's current window and returns the count so far, with the
     * milliseconds until the window ends. One statement: concurrent requests, from any process,
     * each get a distinct count.
     */
    async hit(bucket: string, windowMs: number): Promise<{ hits: number; resetMs: number }> {
      const { rows } = await db.raw<{ rows: { hits: number; reset_ms: number }[] }>(
        `insert into rate_limit_counters as c (bucket, window_start, expires_at, hits)
         select ?, w.start, w.start + ? * interval '1 millisecond', 1
           from (select to_timestamp((floor(extract(epoch from now()) * 1000 / ?) * ? / 1000)::float8) as start) w
         on conflict (bucket, window_start) do update set hits = c.hits + 1
         returning c.hits, greatest(0, extract(epoch from c.expires_at - now()) * 1000)::float8 as reset_ms`,
        [bucket, windowMs, windowMs, windowMs],
      );
      const row = rows[0]!;
      return { hits: row.hits, resetMs: row.reset_ms };
    },

    /** Deletes the counters of windows that have ended. */
    async purgeExpired(): Promise<number> {
      return db('rate_limit_counters').where('expires_at', '<', db.fn.now()).delete();
    },
  };
}

export type RateLimitRepository = ReturnType<typeof createRateLimitRepository>;
