import type { Knex } from 'knex';

/**
 * Rate-limit counters (decision 0110): one row per bucket (an API key, or a route group and client
 * address) and fixed window, bumped by an atomic upsert, so every API process on the database
 * shares one count. Unlogged: the counters are worth no WAL, and a crash that empties them only
 * forgives the current window.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create unlogged table rate_limit_counters (
      bucket text not null,
      window_start timestamptz not null,
      expires_at timestamptz not null,
      hits integer not null,
      primary key (bucket, window_start)
    );
    create index rate_limit_counters_expires on rate_limit_counters (expires_at);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`drop table rate_limit_counters`);
}
