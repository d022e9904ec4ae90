import type { Knex } from 'knex';

/**
 * Costs added on top (spec §1, decision 0113): the card acquirer's fee per capture and the bank's
 * charge per claim payment, recorded once when the acquirer or the bank reports them, and settled
 * as lines of their own (gross 0, fee = the cost, net = −the cost). A run keeps the part of its
 * fee that is each kind of cost, so the service fee is `fee − acquirer_fee − bank_cost`.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table payment_costs (
      id bigserial primary key,
      merchant_id text not null references merchants(id),
      livemode boolean not null,
      kind text not null check (kind in ('acquirer_fee', 'bank_cost')),
      -- What the cost is for, once ever: the acquirer's authorization id of a capture, or the claim
      -- transaction key (claim_transactions.bank_transaction_key) of a claim payment.
      source_id text not null,
      -- {kind}:{source_id}: a replayed capture or a bank file seen twice records nothing more.
      idempotency_key text not null,
      -- An acquirer fee's payment; a bank cost's payment is its claim's, once the claim is paid.
      payment_intent_id text references payment_intents(id),
      claim_id text references claims(id),
      amount bigint not null check (amount > 0),
      currency text not null default 'ISK' check (currency = 'ISK'),
      -- The bank file that reported a bank cost.
      bank_file_id text references bank_files(id),
      -- When the cost arose (the capture, the bank's booking day) and when Skil learned of it.
      occurred_at timestamptz not null,
      recorded_at timestamptz not null default now(),
      unique (livemode, idempotency_key),
      check (idempotency_key = kind || ':' || source_id),
      check (kind <> 'acquirer_fee' or payment_intent_id is not null),
      check (kind <> 'bank_cost' or claim_id is not null)
    );
    create index payment_costs_scope on payment_costs (merchant_id, livemode, recorded_at);
    create index payment_costs_payment_intent on payment_costs (payment_intent_id) where payment_intent_id is not null;
    create index payment_costs_claim on payment_costs (claim_id) where claim_id is not null;

    alter table settlement_lines drop constraint settlement_lines_kind_check;
    alter table settlement_lines add constraint settlement_lines_kind_check
      check (kind in ('payment', 'refund', 'reversal', 'acquirer_fee', 'bank_cost'));

    alter table settlement_runs
      add column acquirer_fee bigint not null default 0 check (acquirer_fee >= 0),
      add column bank_cost bigint not null default 0 check (bank_cost >= 0);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    alter table settlement_runs drop column acquirer_fee, drop column bank_cost;
    delete from settlement_lines where kind in ('acquirer_fee', 'bank_cost');
    alter table settlement_lines drop constraint settlement_lines_kind_check;
    alter table settlement_lines add constraint settlement_lines_kind_check
      check (kind in ('payment', 'refund', 'reversal'));
    drop table payment_costs;
  `);
}
