import type { Knex } from 'knex';

/**
 * The object an event is about, as columns the writer fills (decision 0189), instead of indexes on
 * expressions over `data`: `data` is json (it keeps key order), so each such index parsed every
 * event's whole document again on insert, twice per event, on the billing run's hottest statement.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    alter table events add column object_ref text, add column payment_intent_ref text;
    update events set object_ref = data->>'id',
                      payment_intent_ref = case when json_typeof(data->'payment_intent') = 'string'
                                                then data->>'payment_intent' end;
    drop index events_object_id;
    drop index events_payment_intent;
    create index events_object_id on events (merchant_id, livemode, object_ref);
    create index events_payment_intent on events (merchant_id, livemode, payment_intent_ref)
      where payment_intent_ref is not null;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    drop index events_object_id;
    drop index events_payment_intent;
    alter table events drop column object_ref, drop column payment_intent_ref;
    create index events_object_id on events (merchant_id, livemode, (data->>'id'));
    create index events_payment_intent on events (merchant_id, livemode, (data->>'payment_intent'))
      where data->>'payment_intent' is not null;
  `);
}
