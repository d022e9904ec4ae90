import type { Knex } from 'knex';

/**
 * API processes keep the keys they have looked up (decision 0186). Any change that could end a key —
 * revocation, a changed hash, merchant or mode, deletion — by whatever path, the dashboard or plain
 * SQL, sends the key's hash on channel `api_key_changed` when it commits, so every process drops it.
 * `last_used_at` is not among the columns: recording use must not empty the caches.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create function api_key_changed() returns trigger language plpgsql as $$
    begin
      perform pg_notify('api_key_changed', old.key_hash);
      return null;
    end $$;
    create trigger api_key_changed
      after update of revoked_at, key_hash, merchant_id, livemode or delete on api_keys
      for each row execute function api_key_changed();
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    drop trigger api_key_changed on api_keys;
    drop function api_key_changed();
  `);
}
