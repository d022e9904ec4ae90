import type { Knex } from 'knex';
import { PUBLISHED_DEFAULT_INTEREST_RATES } from './data/published-default-interest-rates';
import { DEFAULT_COLLECTION_CAPS } from '../domain/collection-caps';

/**
 * Collection of overdue kröfur (decisions 0244–0247): the statutory default-interest rates and the
 * collection cost caps per environment (operator data), each merchant's collection policy, the
 * collection state of a krafa and one row per collection step taken, unique per (krafa, step) so a
 * restarted worker never takes a step twice.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table default_interest_rates (
      livemode boolean not null,
      valid_from date not null,
      consumer numeric(7, 3) not null check (consumer between 0 and 100),
      business numeric(7, 3) not null check (business between 0 and 100),
      source text not null check (length(source) between 1 and 500),
      created_at timestamptz not null default now(),
      primary key (livemode, valid_from)
    );

    create table collection_caps (
      livemode boolean not null,
      key text not null,
      amount bigint not null check (amount >= 0),
      source text not null,
      updated_at timestamptz not null default now(),
      primary key (livemode, key)
    );

    create table collection_policies (
      merchant_id text not null references merchants(id),
      livemode boolean not null,
      policy jsonb not null,
      updated_at timestamptz not null default now(),
      primary key (merchant_id, livemode)
    );

    alter table claims
      add column collection_state text
        check (collection_state in ('overdue', 'warning', 'interim', 'handed_off', 'closed', 'stopped')),
      add column collection_plan jsonb,
      add column collection_next_step integer,
      add column collection_next_on text check (collection_next_on ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$'),
      add column collection_costs bigint not null default 0 check (collection_costs >= 0);
    create index claims_collection_due on claims (livemode, collection_next_on)
      where collection_next_on is not null;
    create index claims_overdue_candidates on claims (livemode, final_due_date)
      where status = 'issued' and collection_state is null;

    create table claim_collection_steps (
      id text primary key,
      merchant_id text not null references merchants(id),
      livemode boolean not null,
      claim_id text not null references claims(id),
      step integer not null check (step >= 0),
      kind text not null
        check (kind in ('overdue', 'warning', 'letter', 'reminder', 'call', 'hand_off', 'close')),
      taken_on text not null check (taken_on ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$'),
      cost bigint not null check (cost >= 0),
      principal bigint not null,
      interest bigint not null,
      costs_total bigint not null,
      collection_costs bigint not null,
      total bigint not null,
      status text not null default 'taken' check (status in ('taken', 'withdrawn')),
      bank_altered_at timestamptz,
      mailed_at timestamptz,
      mail_error text,
      handed_off_at timestamptz,
      created_at timestamptz not null default now(),
      unique (claim_id, step)
    );
    create index claim_collection_steps_unsent on claim_collection_steps (livemode, created_at)
      where bank_altered_at is null or mailed_at is null;
  `);
  for (const livemode of [false, true]) {
    for (const r of PUBLISHED_DEFAULT_INTEREST_RATES)
      await knex('default_interest_rates').insert({
        livemode,
        valid_from: r.from,
        consumer: r.consumer,
        business: r.business,
        source: r.source,
      });
    for (const [key, cap] of Object.entries(DEFAULT_COLLECTION_CAPS))
      await knex('collection_caps').insert({ livemode, key, amount: cap.amount, source: cap.source });
  }
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    drop table claim_collection_steps;
    drop index claims_overdue_candidates;
    drop index claims_collection_due;
    alter table claims drop column collection_state, drop column collection_plan,
      drop column collection_next_step, drop column collection_next_on, drop column collection_costs;
    drop table collection_policies;
    drop table collection_caps;
    drop table default_interest_rates;
  `);
}
