import type { Knex } from 'knex';

/**
 * A channel whose deliveries of the last 72 hours all failed is disabled by the service (decision
 * 0112): why and when a channel was disabled, and since when failures count after re-enabling.
 * The index serves the rule's look at a channel's finished deliveries by time.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    alter table notification_channels
      add column disabled_reason text check (disabled_reason in ('failing_deliveries', 'requested')),
      add column disabled_at timestamptz,
      add column failures_counted_since timestamptz;
    update notification_channels set disabled_reason = 'requested', disabled_at = updated_at
     where status = 'disabled';
    alter table notification_channels
      add constraint notification_channels_disabled_reason
        check ((status = 'disabled') = (disabled_reason is not null and disabled_at is not null));
    create index webhook_deliveries_channel_finished on webhook_deliveries (channel_id, last_attempt_at)
      where status in ('succeeded', 'failed');
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    drop index webhook_deliveries_channel_finished;
    alter table notification_channels
      drop constraint notification_channels_disabled_reason,
      drop column disabled_reason,
      drop column disabled_at,
      drop column failures_counted_since;
  `);
}
