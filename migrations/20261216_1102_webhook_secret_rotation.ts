import type { Knex } from 'knex';

/**
 * A rotated signing secret stays valid for an overlap (decision 0112): the channel keeps the
 * previous secret, sealed like the current one, and when it stops being used.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    alter table notification_channels
      add column previous_secret text,
      add column previous_secret_expires_at timestamptz,
      add constraint notification_channels_previous_secret
        check ((previous_secret is null) = (previous_secret_expires_at is null));
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    alter table notification_channels
      drop constraint notification_channels_previous_secret,
      drop column previous_secret,
      drop column previous_secret_expires_at;
  `);
}
