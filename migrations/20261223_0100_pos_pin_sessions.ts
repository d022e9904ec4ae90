import type { Knex } from 'knex';

/**
 * A till's PIN session has a start (decision 0150): it lasts PIN_SESSION_HOURS from sign-in. A
 * person signed in before this migration counts from now.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    alter table pos_devices add column signed_in_at timestamptz;
    update pos_devices set signed_in_at = now() where signed_in_staff_id is not null;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`alter table pos_devices drop column signed_in_at;`);
}
