import type { Knex } from 'knex';

/**
 * Credit notes delivered as invoices are (decision 0237): one delivery per credit note, written with
 * the credit note when its invoice's customer chose Peppol or e-mail, moved on by the same workflow
 * and with the same states as `invoice_deliveries`.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table credit_note_deliveries (
      credit_note_id text primary key,
      merchant_id text not null references merchants(id),
      livemode boolean not null,
      method text not null check (method in ('peppol', 'email')),
      status text not null default 'pending' check (status in ('pending', 'sent', 'delivered', 'failed')),
      receiver text,
      transmission_id text,
      reasons jsonb not null default '[]',
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      finished_at timestamptz,
      foreign key (credit_note_id, merchant_id, livemode) references credit_notes (id, merchant_id, livemode),
      check ((status in ('delivered', 'failed')) = (finished_at is not null))
    );
    create index credit_note_deliveries_open on credit_note_deliveries (created_at)
      where status in ('pending', 'sent');
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`drop table credit_note_deliveries;`);
}
