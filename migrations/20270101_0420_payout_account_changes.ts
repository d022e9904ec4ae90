import type { Knex } from 'knex';

/**
 * Changes of a merchant's payout bank account (decision 0228): who changed it to what, until when
 * payouts to the new account are held, and whether an owner confirmed it from the emailed link
 * (the link's token is kept as its SHA-256 only).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table payout_account_changes (
      id text primary key,
      merchant_id text not null references merchants(id),
      previous_account text,
      new_account text not null,
      changed_by text not null,
      client_address text,
      created_at timestamptz not null default now(),
      held_until timestamptz not null,
      confirm_token_hash text not null unique,
      confirmed_at timestamptz
    );
    create index payout_account_changes_merchant on payout_account_changes (merchant_id, created_at desc, id desc);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`drop table payout_account_changes`);
}
