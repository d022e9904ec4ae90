import type { Knex } from 'knex';

/**
 * Invoices and credit notes (decisions 0138-0140): the merchant's VAT number and default
 * VAT rate (an extension of spec §2.3), one number sequence per merchant and environment, and the
 * immutable documents numbered from it. A sequence row is updated in the transaction that issues
 * the documents, so a rollback returns its numbers and concurrent issuers queue on the row.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    alter table merchants add column vat_number text check (vat_number ~ '^[0-9]{5,6}$');
    -- null: 24 with a VAT number, 0 without one (a merchant not registered for VAT charges none).
    alter table merchants add column default_vat_rate integer check (default_vat_rate in (0, 11, 24));

    -- Receipt and invoice emails to the buyer after payment (decision 0141).
    alter table merchants add column receipt_emails boolean not null default true;

    -- A billing page finds its paid renewals' sales by payment intent.
    create index renewals_payment_intent on renewals (payment_intent_id) where payment_intent_id is not null;

    create table invoice_sequences (
      merchant_id text not null references merchants(id),
      livemode boolean not null,
      last_number integer not null check (last_number >= 0),
      primary key (merchant_id, livemode)
    );

    create table invoices (
      id text primary key,
      merchant_id text not null references merchants(id),
      livemode boolean not null,
      sequence integer not null check (sequence > 0),
      number text not null,
      status text not null check (status in ('paid', 'open')),
      payment_intent_id text not null,
      customer_id text,
      subscription_id text,
      checkout_session_id text,
      seller jsonb not null,
      buyer jsonb not null,
      lines jsonb not null,
      vat jsonb not null,
      total bigint not null check (total >= 0),
      total_vat bigint not null check (total_vat >= 0),
      amount_credited bigint not null default 0 check (amount_credited >= 0),
      issued_at timestamptz not null,
      supplied_at timestamptz not null,
      due_date date,
      final_due_date date,
      payment_reference text not null,
      created_at timestamptz not null default now(),
      unique (id, merchant_id, livemode),
      unique (merchant_id, livemode, sequence),
      -- One invoice per charge: a retried issue never makes a second.
      unique (payment_intent_id),
      check (amount_credited <= total),
      foreign key (payment_intent_id, merchant_id, livemode) references payment_intents (id, merchant_id, livemode)
    );
    create index invoices_scope on invoices (merchant_id, livemode, created_at, id);
    create index invoices_customer on invoices (customer_id, created_at, id) where customer_id is not null;
    create index invoices_subscription on invoices (subscription_id) where subscription_id is not null;

    create table credit_notes (
      id text primary key,
      merchant_id text not null references merchants(id),
      livemode boolean not null,
      sequence integer not null check (sequence > 0),
      number text not null,
      invoice_id text not null,
      refund_id text not null unique,
      lines jsonb not null,
      vat jsonb not null,
      total bigint not null check (total > 0),
      total_vat bigint not null check (total_vat >= 0),
      issued_at timestamptz not null,
      created_at timestamptz not null default now(),
      unique (id, merchant_id, livemode),
      foreign key (invoice_id, merchant_id, livemode) references invoices (id, merchant_id, livemode),
      foreign key (refund_id, merchant_id, livemode) references refunds (id, merchant_id, livemode)
    );
    create index credit_notes_scope on credit_notes (merchant_id, livemode, created_at, id);
    create index credit_notes_invoice on credit_notes (invoice_id, created_at, id);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    drop table credit_notes;
    drop table invoices;
    drop table invoice_sequences;
    drop index renewals_payment_intent;
    alter table merchants drop column receipt_emails;
    alter table merchants drop column default_vat_rate;
    alter table merchants drop column vat_number;
  `);
}
