import type { Knex } from 'knex';

/**
 * Settlement (decision 0090): bank files received over SFTP and their statements and
 * entries, how each entry was matched, the exceptions finance operators work through, settlement
 * runs with their lines, payouts, and the audit log of operator actions.
 *
 * Bank files belong to the service's collection account, not to a merchant: they are scoped by
 * environment (livemode) and bank connection, and only operators see them. Settlement runs, lines
 * and payouts are merchant rows like every other.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table bank_files (
      id text primary key,
      livemode boolean not null,
      connection text not null,
      name text not null,
      sha256 text not null check (sha256 ~ '^[0-9a-f]{64}$'),
      size bigint not null check (size >= 0),
      -- Where the raw bytes are kept (relative to the data folder), written before parsing starts.
      storage_path text not null,
      status text not null default 'received'
        check (status in ('received', 'processed', 'duplicate', 'quarantined')),
      message_type text check (message_type in ('camt.053', 'camt.054')),
      message_version text,
      message_id text,
      quarantine_reason text,
      entry_count integer not null default 0,
      received_at timestamptz not null default now(),
      processed_at timestamptz,
      archived_at timestamptz,
      -- Store once: the same bytes from the same connection are the same file.
      unique (livemode, connection, sha256)
    );
    create index bank_files_received on bank_files (livemode, received_at desc, id desc);

    create table bank_statements (
      id bigserial primary key,
      bank_file_id text not null references bank_files(id),
      livemode boolean not null,
      message_type text not null check (message_type in ('camt.053', 'camt.054')),
      statement_id text not null,
      sequence_number text not null default '',
      account text not null,
      currency text,
      opening_balance bigint,
      closing_balance bigint,
      entry_count integer not null default 0,
      credits bigint not null default 0,
      debits bigint not null default 0,
      created_at timestamptz not null default now(),
      unique (bank_file_id, statement_id, sequence_number)
    );
    -- The same statement (account, id, sequence) delivered in a second file is a duplicate, not money.
    create unique index bank_statements_identity
      on bank_statements (livemode, message_type, account, statement_id, sequence_number);

    create table bank_entries (
      id bigserial primary key,
      bank_statement_id bigint not null references bank_statements(id),
      bank_file_id text not null references bank_files(id),
      livemode boolean not null,
      entry_index integer not null check (entry_index >= 0),
      status text not null,
      booked boolean not null,
      credit boolean not null,
      reversal boolean not null default false,
      amount bigint not null check (amount >= 0),
      currency text not null,
      booking_date text,
      value_date text,
      acct_svcr_ref text,
      entry_ref text,
      end_to_end_id text,
      reference text,
      -- The entry's transaction details, compacted: [{amount, credit, refs, reference, ...}].
      details jsonb not null default '[]',
      match_status text not null default 'unmatched'
        check (match_status in ('unmatched', 'matched', 'exception', 'information')),
      matched_kind text
        check (matched_kind in ('claim_payment', 'claim_lump_sum', 'acquirer_deposit', 'payout')),
      created_at timestamptz not null default now(),
      unique (bank_statement_id, entry_index)
    );
    create index bank_entries_file on bank_entries (bank_file_id, id);
    create index bank_entries_acct_svcr_ref on bank_entries (livemode, acct_svcr_ref) where acct_svcr_ref is not null;
    create index bank_entries_end_to_end on bank_entries (livemode, end_to_end_id) where end_to_end_id is not null;

    -- What an entry (or one of its transaction details) was matched to. An object is matched once:
    -- a claim payment or a deposit seen in a second file cannot count twice.
    create table bank_matches (
      id bigserial primary key,
      livemode boolean not null,
      bank_entry_id bigint not null references bank_entries(id),
      detail_index integer not null default 0,
      kind text not null
        check (kind in ('claim_payment', 'claim_lump_sum', 'acquirer_deposit', 'payout', 'manual')),
      object_id text not null,
      amount bigint not null,
      created_at timestamptz not null default now(),
      unique (bank_entry_id, detail_index),
      unique (livemode, kind, object_id)
    );

    create table bank_exceptions (
      id text primary key,
      livemode boolean not null,
      bank_file_id text not null references bank_files(id),
      bank_entry_id bigint references bank_entries(id),
      detail_index integer not null default 0,
      kind text not null
        check (kind in ('unmatched', 'amount_mismatch', 'duplicate', 'reversal', 'unknown_account')),
      message text not null,
      expected_amount bigint,
      actual_amount bigint,
      status text not null default 'open' check (status in ('open', 'resolved', 'handled')),
      resolution_note text,
      resolved_payment_intent_id text references payment_intents(id),
      resolved_by text,
      resolved_at timestamptz,
      created_at timestamptz not null default now(),
      check ((status = 'open') = (resolved_at is null))
    );
    -- Re-processing a file records each exception once.
    create unique index bank_exceptions_once
      on bank_exceptions (bank_file_id, coalesce(bank_entry_id, 0), detail_index, kind);
    create index bank_exceptions_queue on bank_exceptions (livemode, status, created_at desc, id desc);

    create table settlement_runs (
      id text primary key,
      merchant_id text not null references merchants(id),
      livemode boolean not null,
      -- The Iceland banking day the run settles; the workflow id is settlement/{env}/{merchant}/{date}.
      settlement_date text not null check (settlement_date ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$'),
      cutoff timestamptz not null,
      status text not null default 'open'
        check (status in ('open', 'pending_review', 'approved', 'submitted', 'paid', 'failed')),
      currency text not null default 'ISK' check (currency = 'ISK'),
      gross bigint not null default 0,
      fee bigint not null default 0,
      net bigint not null default 0,
      line_count integer not null default 0,
      approved_by text,
      approved_at timestamptz,
      submitted_at timestamptz,
      paid_at timestamptz,
      failed_at timestamptz,
      failure_reason text,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      unique (id, merchant_id, livemode),
      unique (merchant_id, livemode, settlement_date),
      check (gross - fee = net)
    );
    create index settlement_runs_scope on settlement_runs (merchant_id, livemode, created_at desc, id desc);
    create index settlement_runs_by_day on settlement_runs (livemode, settlement_date desc);

    create table settlement_lines (
      id bigserial primary key,
      settlement_run_id text not null,
      merchant_id text not null,
      livemode boolean not null,
      kind text not null check (kind in ('payment', 'refund', 'reversal')),
      fee_kind text not null check (fee_kind in ('card_online', 'card_pos', 'claim')),
      -- What is settled, once ever: pi_… for a capture, re_… for a refund, the claim transaction key
      -- for a reversal.
      source_id text not null,
      payment_intent_id text references payment_intents(id),
      gross bigint not null,
      fee bigint not null,
      net bigint not null,
      occurred_at timestamptz not null,
      created_at timestamptz not null default now(),
      unique (livemode, kind, source_id),
      check (gross - fee = net),
      foreign key (settlement_run_id, merchant_id, livemode)
        references settlement_runs (id, merchant_id, livemode)
    );
    create index settlement_lines_run on settlement_lines (settlement_run_id, id);

    create table payouts (
      id text primary key,
      merchant_id text not null references merchants(id),
      livemode boolean not null,
      settlement_run_id text not null unique,
      amount bigint not null check (amount > 0),
      currency text not null default 'ISK' check (currency = 'ISK'),
      -- The merchant's bank account (4-2-6) at approval time.
      destination_account text not null,
      destination_kennitala text not null,
      -- {stl_id}:payout; one payout per run, whatever retries happen.
      idempotency_key text not null unique,
      -- The pain.001 EndToEndId, found again on the debit in a later statement.
      end_to_end_id text not null unique,
      channel text not null,
      file_name text,
      status text not null default 'pending' check (status in ('pending', 'submitted', 'paid', 'failed')),
      bank_entry_id bigint references bank_entries(id),
      submitted_at timestamptz,
      paid_at timestamptz,
      failure_reason text,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      foreign key (settlement_run_id, merchant_id, livemode)
        references settlement_runs (id, merchant_id, livemode)
    );

    create table audit_log (
      id bigserial primary key,
      livemode boolean,
      actor_kind text not null check (actor_kind in ('operator', 'merchant_user', 'system')),
      actor_id text,
      actor_name text not null,
      action text not null,
      object_type text not null,
      object_id text not null,
      merchant_id text references merchants(id),
      data jsonb not null default '{}',
      created_at timestamptz not null default now()
    );
    create index audit_log_object on audit_log (object_type, object_id, created_at desc);
    create index audit_log_recent on audit_log (created_at desc, id desc);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    drop table audit_log; drop table payouts; drop table settlement_lines; drop table settlement_runs;
    drop table bank_exceptions; drop table bank_matches; drop table bank_entries;
    drop table bank_statements; drop table bank_files;
  `);
}
