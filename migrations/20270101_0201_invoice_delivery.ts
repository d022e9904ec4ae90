import type { Knex } from 'knex';

/**
 * E-invoice delivery (decisions 0215–0217): the customer's choice of how its invoices reach it, and
 * one delivery per invoice, written in the transaction that issues the invoice (the outbox) and
 * moved on by the invoice's delivery workflow: pending → sent (the access point has it) → delivered,
 * or failed with the reasons (rule ids) the access point gave.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    alter table customers add column invoice_delivery text not null default 'none';
    alter table customers add constraint customers_invoice_delivery_check
      check (invoice_delivery in ('peppol', 'email', 'none'));

    create table invoice_deliveries (
      invoice_id text primary key,
      merchant_id text not null references merchants(id),
      livemode boolean not null,
      method text not null check (method in ('peppol', 'email')),
      status text not null default 'pending' check (status in ('pending', 'sent', 'delivered', 'failed')),
      -- The participant id (scheme:value) or e-mail address it went to; null until known.
      receiver text,
      -- The access point's id of the transmission, once it has the document.
      transmission_id text,
      reasons jsonb not null default '[]',
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      finished_at timestamptz,
      foreign key (invoice_id, merchant_id, livemode) references invoices (id, merchant_id, livemode),
      check ((status in ('delivered', 'failed')) = (finished_at is not null))
    );
    -- The relay finds deliveries whose workflow may not have started.
    create index invoice_deliveries_open on invoice_deliveries (created_at) where status in ('pending', 'sent');
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    drop table invoice_deliveries;
    alter table customers drop column invoice_delivery;
  `);
}
