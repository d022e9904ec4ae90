import type { Knex } from 'knex';

/**
 * Invoices of till sales to business buyers (decision 0235): the sale names its customer, its invoice
 * names the sale (one per sale), and a till refund of such a sale is credited by a credit note that
 * names the till refund (one per refund).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    alter table pos_sales add column customer_id text references customers(id);

    alter table invoices add column pos_sale_id text references pos_sales(id);
    alter table invoices add constraint invoices_pos_sale_id_key unique (pos_sale_id);
    alter table invoices drop constraint invoices_paid_by;
    alter table invoices add constraint invoices_paid_by
      check (payment_intent_id is not null or claim_id is not null or pos_sale_id is not null);

    alter table credit_notes add column pos_refund_id text references pos_refunds(id);
    alter table credit_notes add constraint credit_notes_pos_refund_id_key unique (pos_refund_id);
    alter table credit_notes drop constraint credit_notes_credits;
    alter table credit_notes add constraint credit_notes_credits
      check (num_nonnulls(refund_id, claim_id, pos_refund_id) = 1);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    delete from credit_notes where pos_refund_id is not null;
    alter table credit_notes drop constraint credit_notes_credits;
    alter table credit_notes drop column pos_refund_id;
    alter table credit_notes add constraint credit_notes_credits check ((refund_id is null) <> (claim_id is null));
    delete from invoices where pos_sale_id is not null;
    alter table invoices drop constraint invoices_paid_by;
    alter table invoices drop column pos_sale_id;
    alter table invoices add constraint invoices_paid_by check (payment_intent_id is not null or claim_id is not null);
    alter table pos_sales drop column customer_id;
  `);
}
