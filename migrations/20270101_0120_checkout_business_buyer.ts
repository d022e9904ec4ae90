import type { Knex } from 'knex';

/**
 * "Invoice to a company" on the hosted checkout (decision 0212): a session may offer it, and keeps
 * what the buyer gave (the company's kennitala, name and address) until completion makes a customer
 * of it. Payment links carry the offer in their template (JSON), so they need no column.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    alter table checkout_sessions add column business_invoice boolean not null default false;
    alter table checkout_sessions add column business_buyer jsonb;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`alter table checkout_sessions drop column business_buyer, drop column business_invoice;`);
}
