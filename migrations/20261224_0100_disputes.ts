import type { Knex } from 'knex';

/**
 * Card disputes (decisions 0155-0157): one row per dispute the acquirer opened, unique on
 * the acquirer's dispute id so a notification delivered twice (or at once) makes one dispute; the
 * payment intent names its dispute; settlement lines of kinds `dispute` (the amount withdrawn) and
 * `dispute_reversal` (a won dispute paid back), each once per dispute by the lines' unique
 * (livemode, kind, source_id).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table disputes (
      id text primary key,
      merchant_id text not null references merchants(id),
      livemode boolean not null,
      payment_intent_id text not null,
      acquirer_reference text not null,
      amount bigint not null check (amount > 0),
      currency text not null default 'ISK' check (currency = 'ISK'),
      reason text not null check (reason in ('fraudulent', 'product_not_received', 'duplicate', 'general')),
      status text not null check (status in ('needs_response', 'under_review', 'won', 'lost')),
      evidence jsonb,
      evidence_submitted_at timestamptz,
      submission_count integer not null default 0 check (submission_count >= 0),
      evidence_due_by timestamptz not null,
      closed_at timestamptz,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      unique (acquirer_reference),
      check ((status in ('won', 'lost')) = (closed_at is not null)),
      foreign key (payment_intent_id, merchant_id, livemode) references payment_intents (id, merchant_id, livemode)
    );
    create index disputes_scope on disputes (merchant_id, livemode, created_at, id);
    create index disputes_payment_intent on disputes (payment_intent_id);

    alter table payment_intents add column dispute_id text references disputes(id);
    -- A notification names the acquirer's authorization; its payment is found by it.
    create index payment_intents_acquirer_authorization on payment_intents (acquirer_authorization)
      where acquirer_authorization is not null;

    alter table settlement_lines drop constraint settlement_lines_kind_check;
    alter table settlement_lines add constraint settlement_lines_kind_check
      check (kind in ('payment', 'refund', 'reversal', 'acquirer_fee', 'bank_cost', 'dispute', 'dispute_reversal'));
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    delete from settlement_lines where kind in ('dispute', 'dispute_reversal');
    alter table settlement_lines drop constraint settlement_lines_kind_check;
    alter table settlement_lines add constraint settlement_lines_kind_check
      check (kind in ('payment', 'refund', 'reversal', 'acquirer_fee', 'bank_cost'));
    drop index payment_intents_acquirer_authorization;
    alter table payment_intents drop column dispute_id;
    drop table disputes;
  `);
}
