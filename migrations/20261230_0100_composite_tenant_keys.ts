import type { Knex } from 'knex';

/**
 * Three tables a renewal writes named their merchant twice: once in a key to `merchants`, once
 * through the row they belong to. A renewal's subscription, a delivery's channel and an invoice's
 * payment already carry the merchant. Their keys now take the scope with them (id, merchant_id,
 * livemode), so the database also refuses a row whose merchant or environment differs from its
 * parent's, and the separate key to `merchants` goes: that parent's own key already checks the
 * merchant exists. Four checks fewer per renewal, each a lock on the one `merchants` row every
 * concurrent billing page shares (decision 0196). Events and payment costs keep theirs: nothing
 * else carries their merchant.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    alter table notification_channels
      add constraint notification_channels_id_merchant_id_livemode_key unique (id, merchant_id, livemode);

    alter table renewals
      drop constraint renewals_merchant_id_fkey,
      drop constraint renewals_subscription_id_fkey,
      add constraint renewals_subscription_scope_fkey foreign key (subscription_id, merchant_id, livemode)
        references subscriptions (id, merchant_id, livemode);

    alter table webhook_deliveries
      drop constraint webhook_deliveries_merchant_id_fkey,
      drop constraint webhook_deliveries_channel_id_fkey,
      add constraint webhook_deliveries_channel_scope_fkey foreign key (channel_id, merchant_id, livemode)
        references notification_channels (id, merchant_id, livemode);

    alter table invoices drop constraint invoices_merchant_id_fkey;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    alter table invoices add constraint invoices_merchant_id_fkey foreign key (merchant_id) references merchants (id);

    alter table webhook_deliveries
      drop constraint webhook_deliveries_channel_scope_fkey,
      add constraint webhook_deliveries_channel_id_fkey foreign key (channel_id) references notification_channels (id),
      add constraint webhook_deliveries_merchant_id_fkey foreign key (merchant_id) references merchants (id);

    alter table renewals
      drop constraint renewals_subscription_scope_fkey,
      add constraint renewals_subscription_id_fkey foreign key (subscription_id) references subscriptions (id),
      add constraint renewals_merchant_id_fkey foreign key (merchant_id) references merchants (id);

    alter table notification_channels drop constraint notification_channels_id_merchant_id_livemode_key;
  `);
}
