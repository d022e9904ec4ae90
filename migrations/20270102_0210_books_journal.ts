import type { Knex } from 'knex';

/**
 * The merchant's journal (decision 0239) and closed periods (decision 0240): the chart of accounts a
 * merchant numbers itself; one books row per merchant and mode that a close locks; the closed
 * periods; and the entries a close copied, one row per source ever (the unique constraint), with the
 * account numbers and names as they were, so a closed period's export never changes. Indexes so a
 * period's payments and costs are read in (time, id) order within the merchant's scope.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table books_accounts (
      merchant_id text not null references merchants(id),
      livemode boolean not null,
      role text not null,
      number text not null check (length(number) between 1 and 20),
      name text check (length(name) between 1 and 100),
      updated_at timestamptz not null default now(),
      primary key (merchant_id, livemode, role)
    );

    create table books (
      merchant_id text not null references merchants(id),
      livemode boolean not null,
      -- The last day of the latest closed period; later sources land in the period after it.
      closed_through date,
      primary key (merchant_id, livemode)
    );

    create table books_closed_periods (
      merchant_id text not null,
      livemode boolean not null,
      period_id text not null,
      kind text not null check (kind in ('two_month', 'yearly')),
      start_date date not null,
      end_date date not null,
      entry_count integer not null,
      debit bigint not null,
      credit bigint not null,
      closed_at timestamptz not null default now(),
      primary key (merchant_id, livemode, period_id),
      foreign key (merchant_id, livemode) references books (merchant_id, livemode),
      check (debit = credit)
    );

    create table journal_closed_entries (
      id bigserial primary key,
      merchant_id text not null,
      livemode boolean not null,
      period_id text not null,
      source_type text not null,
      source_id text not null,
      occurred_at timestamptz not null,
      entry_date date not null,
      reference text,
      -- [{account, number, name, amount}]: positive a debit, negative a credit; sums to zero.
      lines jsonb not null,
      unique (merchant_id, livemode, source_type, source_id),
      foreign key (merchant_id, livemode, period_id)
        references books_closed_periods (merchant_id, livemode, period_id) deferrable initially deferred
    );
    create index journal_closed_entries_period on journal_closed_entries (merchant_id, livemode, period_id, id);

    create index payment_intents_captured on payment_intents (merchant_id, livemode, captured_at, id)
      where captured_at is not null;
    create index payment_costs_occurred on payment_costs (merchant_id, livemode, occurred_at, source_id);
    create index payouts_paid on payouts (merchant_id, livemode, paid_at, id) where paid_at is not null;
    create index disputes_closed on disputes (merchant_id, livemode, closed_at, id) where status = 'won';
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    drop index disputes_closed;
    drop index payouts_paid;
    drop index payment_costs_occurred;
    drop index payment_intents_captured;
    drop table journal_closed_entries;
    drop table books_closed_periods;
    drop table books;
    drop table books_accounts;
  `);
}
