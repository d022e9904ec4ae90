import type { Knex } from 'knex';

/**
 * Invoices of sales paid by krafa (decision 0211): issued when the bank accepts the krafa, open until
 * it is paid, with its account (bank, ledger 66, claim number) and its gjalddagi and eindagi. Such an
 * invoice has no payment intent until the krafa is paid; a krafa cancelled unpaid is credited in
 * full by a credit note that names the krafa instead of a refund.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    alter table invoices alter column payment_intent_id drop not null;
    alter table invoices add column claim_id text references claims(id);
    alter table invoices add column claim_account text check (claim_account ~ '^[0-9]{4}66[0-9]{6}$');
    -- One invoice per krafa: a retried batch result never issues a second.
    alter table invoices add constraint invoices_claim_id_key unique (claim_id);
    alter table invoices add constraint invoices_paid_by check (payment_intent_id is not null or claim_id is not null);

    alter table credit_notes alter column refund_id drop not null;
    alter table credit_notes add column claim_id text references claims(id);
    alter table credit_notes add constraint credit_notes_claim_id_key unique (claim_id);
    alter table credit_notes add constraint credit_notes_credits check ((refund_id is null) <> (claim_id is null));
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    delete from credit_notes where claim_id is not null;
    alter table credit_notes drop column claim_id;
    alter table credit_notes alter column refund_id set not null;
    delete from invoices where payment_intent_id is null;
    alter table invoices drop column claim_account, drop column claim_id;
    alter table invoices alter column payment_intent_id set not null;
  `);
}
