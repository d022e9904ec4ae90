import type { Knex } from 'knex';

/** Bank claims (kröfur): claims, per-merchant claim numbers and the bank's claim transactions (decisions 0060–0063). */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table claim_number_sequences (
      merchant_id text primary key references merchants(id),
      last_number integer not null default 0 check (last_number between 0 and 999999)
    );

    create table claims (
      id text primary key,
      merchant_id text not null references merchants(id),
      livemode boolean not null,
      status text not null default 'pending'
        check (status in ('pending', 'issued', 'paid', 'partially_paid', 'cancelled', 'expired')),
      customer_id text references customers(id),
      payer_kennitala text not null check (payer_kennitala ~ '^[0-9]{10}$'),
      claimant_kennitala text not null check (claimant_kennitala ~ '^[0-9]{10}$'),
      bank text not null check (bank ~ '^[0-9]{4}$'),
      claim_number integer not null check (claim_number between 1 and 999999),
      bank_claim_id text not null unique,
      amount bigint not null check (amount > 0),
      amount_paid bigint not null default 0,
      due_date text not null check (due_date ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$'),
      final_due_date text not null check (final_due_date ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$'),
      cancellation_date text not null check (cancellation_date ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$'),
      check (final_due_date >= due_date and cancellation_date >= final_due_date),
      notice_fee bigint check (notice_fee >= 0),
      terms jsonb not null default '{}',
      description text,
      metadata jsonb not null default '{}',
      batch_key text,
      bank_error jsonb,
      payment_intent_id text references payment_intents(id),
      issued_at timestamptz,
      paid_at timestamptz,
      cancelled_at timestamptz,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      unique (merchant_id, claim_number)
    );
    create index claims_list on claims (merchant_id, livemode, created_at desc, id desc);
    create index claims_pending on claims (livemode, created_at) where status = 'pending';
    create index claims_batch on claims (batch_key) where batch_key is not null;

    create table claim_transactions (
      id bigserial primary key,
      claim_id text not null references claims(id),
      bank_transaction_key text not null unique,
      payment_type text not null,
      amount bigint not null,
      data jsonb not null,
      created_at timestamptz not null default now()
    );
    create index claim_transactions_claim on claim_transactions (claim_id);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`drop table claim_transactions; drop table claims; drop table claim_number_sequences;`);
}
