import type { Knex } from 'knex';

/**
 * The dashboard's payment and krafa pages list the events about one object: its own (`data.id`)
 * and its refunds' (`data.payment_intent`). Expression indexes keep that a lookup, not a scan of
 * the merchant's event ledger.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create index events_object_id on events (merchant_id, livemode, (data->>'id'));
    create index events_payment_intent on events (merchant_id, livemode, (data->>'payment_intent'))
      where data->>'payment_intent' is not null;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`drop index events_object_id; drop index events_payment_intent;`);
}
