import type { Knex } from 'knex';

// Foundation: merchants and their keys, idempotency records, the events ledger (the outbox), and
// notification channels with their deliveries and attempts. Every tenant row carries merchant_id
// and livemode (architecture, "Environments").
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table merchants (
      id text primary key,
      name text not null check (length(name) between 1 and 255),
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    );

    create table api_keys (
      id text primary key,
      merchant_id text not null references merchants(id),
      livemode boolean not null,
      key_hash text not null unique,
      last4 text not null,
      created_at timestamptz not null default now(),
      revoked_at timestamptz,
      last_used_at timestamptz
    );
    create index api_keys_merchant on api_keys (merchant_id, livemode);

    create table idempotency_keys (
      merchant_id text not null references merchants(id),
      livemode boolean not null,
      key text not null,
      method text not null,
      path text not null,
      request_hash text not null,
      state text not null check (state in ('in_flight', 'done')),
      response_status integer,
      response_content_type text,
      response_body text,
      locked_at timestamptz not null default now(),
      created_at timestamptz not null default now(),
      primary key (merchant_id, livemode, key)
    );
    create index idempotency_keys_created on idempotency_keys (created_at);

    create table events (
      seq bigserial unique,
      id text primary key,
      merchant_id text not null references merchants(id),
      livemode boolean not null,
      type text not null,
      -- json, not jsonb: it keeps the key order, and spec §6.2 wants id first in data.
      data json not null,
      -- Milliseconds, because webhooks and the 'after' filter speak ISO 8601 with milliseconds: a
      -- finer stored time would make 'after=<an event's own created_at>' return that event again.
      created_at timestamptz not null default date_trunc('milliseconds', clock_timestamp())
    );
    create index events_scope_time on events (merchant_id, livemode, created_at, seq);

    create table notification_channels (
      id text primary key,
      merchant_id text not null references merchants(id),
      livemode boolean not null,
      type text not null check (type in ('webhook', 'chat')),
      url text not null,
      secret text not null,
      event_subscriptions text[] not null,
      status text not null check (status in ('enabled', 'disabled')),
      description text,
      metadata jsonb not null default '{}',
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      deleted_at timestamptz
    );
    create index notification_channels_scope on notification_channels (merchant_id, livemode, created_at, id)
      where deleted_at is null;

    create table webhook_deliveries (
      id text primary key,
      merchant_id text not null references merchants(id),
      livemode boolean not null,
      channel_id text not null references notification_channels(id),
      event_id text not null references events(id),
      status text not null check (status in ('pending', 'succeeded', 'failed')),
      attempt_count integer not null default 0,
      max_attempts integer not null,
      next_attempt_at timestamptz,
      last_attempt_at timestamptz,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      -- One delivery per event and channel: a replayed outbox write cannot send an event twice.
      unique (channel_id, event_id)
    );
    create index webhook_deliveries_due on webhook_deliveries (channel_id, next_attempt_at)
      where status = 'pending';
    create index webhook_deliveries_stranded on webhook_deliveries (next_attempt_at)
      where status = 'pending';
    create index webhook_deliveries_by_channel on webhook_deliveries (channel_id, created_at, id);

    create table webhook_attempts (
      delivery_id text not null references webhook_deliveries(id),
      attempt_number integer not null check (attempt_number >= 1),
      outcome text not null check (outcome in ('in_progress', 'succeeded', 'failed')),
      started_at timestamptz not null,
      finished_at timestamptz,
      response_status integer,
      latency_ms integer,
      error text,
      primary key (delivery_id, attempt_number)
    );
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    drop table webhook_attempts;
    drop table webhook_deliveries;
    drop table notification_channels;
    drop table events;
    drop table idempotency_keys;
    drop table api_keys;
    drop table merchants;
  `);
}
