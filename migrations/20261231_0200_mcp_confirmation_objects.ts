import type { Knex } from 'knex';

/**
 * MCP confirmation tokens confirm more than refunds (decision 0202): a live subscription created,
 * updated or cancelled, a krafa created or cancelled. The token names the object it is about (a
 * payment intent, a subscription, a claim, or the customer a new one is for; none for a krafa to a
 * bare kennitala) and the ISK it moves or withholds, which may be 0 (a free plan).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    alter table mcp_confirmations rename column payment_intent_id to object_id;
    alter table mcp_confirmations alter column object_id drop not null;
    alter table mcp_confirmations drop constraint mcp_confirmations_amount_check;
    alter table mcp_confirmations add constraint mcp_confirmations_amount_check check (amount >= 0);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    delete from mcp_confirmations where object_id is null or amount = 0;
    alter table mcp_confirmations drop constraint mcp_confirmations_amount_check;
    alter table mcp_confirmations add constraint mcp_confirmations_amount_check check (amount > 0);
    alter table mcp_confirmations alter column object_id set not null;
    alter table mcp_confirmations rename column object_id to payment_intent_id;
  `);
}
