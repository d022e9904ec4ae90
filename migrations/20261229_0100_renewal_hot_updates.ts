import type { Knex } from 'knex';

/**
 * A renewal row is written pending and updated once when its charge ends (status, error, paid_at).
 * The partial index of pending renewals named `status`, so that update had to write a new entry in
 * every index of the table, and a full page left it nowhere to go but another page. Without that
 * index and with half of each new page left free, the update is a heap-only tuple on the same page:
 * no index is touched (decision 0194). Pending renewals are found by subscription through the
 * (subscription_id, period_index) index, a few rows per subscription.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    drop index renewals_pending;
    alter table renewals set (fillfactor = 50);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    alter table renewals reset (fillfactor);
    create index renewals_pending on renewals (subscription_id) where status = 'pending';
  `);
}
