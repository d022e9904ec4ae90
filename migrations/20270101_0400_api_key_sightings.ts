import type { Knex } from 'knex';

/**
 * Where each API key last authenticated (decision 0226): one row per key digest and client address,
 * refreshed at most every few minutes per API process. Past the limit of failed authentications
 * from an address, only a key seen there in the last hour is looked up. The digest is SHA-256 of
 * the key, as the rate limiter's per-key buckets use, never the key itself. Unlogged as the
 * counters are: a crash that empties it only makes known keys wait out one window.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create unlogged table api_key_sightings (
      address text not null,
      key_digest text not null,
      last_at timestamptz not null default now(),
      primary key (address, key_digest)
    );
    create index api_key_sightings_last_at on api_key_sightings (last_at);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`drop table api_key_sightings`);
}
