import type { Knex } from 'knex';

/**
 * Events are listed only below a visibility horizon (decision 0106). Every transaction that writes
 * events announces, before its first event is stamped, the earliest time it can stamp one: a shared
 * transaction-level advisory lock whose key holds that millisecond, taken by a statement trigger
 * once per transaction and released by PostgreSQL when the transaction ends (after its commit is
 * visible). The listing reads those locks first (db/events.ts), then lists with a fresh snapshot
 * only what was stamped before the earliest of them and before the current millisecond.
 *
 * Key: (EVENTS_HORIZON_NS << 48) | milliseconds since 2020-01-01 (48 bits: ~8,900 years). In
 * pg_locks a bigint advisory key shows as classid = key >> 32, objid = key & 0xffffffff, objsubid 1.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create function events_stamp_horizon() returns trigger language plpgsql as $$
    begin
      if current_setting('skil.events_horizon_held', true) is distinct from 'on' then
        perform pg_advisory_xact_lock_shared(
          (24190::bigint << 48)
          | (floor(extract(epoch from clock_timestamp()) * 1000)::bigint - 1577836800000));
        perform set_config('skil.events_horizon_held', 'on', true);
      end if;
      return null;
    end $$;

    create trigger events_stamp_horizon before insert on events
      for each statement execute function events_stamp_horizon();
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    drop trigger events_stamp_horizon on events;
    drop function events_stamp_horizon();
  `);
}
