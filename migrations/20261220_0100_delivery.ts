import type { Knex } from 'knex';

/**
 * Pickup-point delivery and inbound platform orders (decisions 0132–0137): the carriers a
 * merchant has switched on per environment, the pickup point a checkout session asks for and the
 * buyer chose, deliveries booked with a carrier, platform connections and the webhooks they sent.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    alter table merchants add column delivery_carriers jsonb not null default '{"test": [], "live": []}';

    alter table checkout_sessions
      add column pickup_point_carriers text[],
      add column pickup_point jsonb;

    create table deliveries (
      id text primary key,
      merchant_id text not null references merchants(id),
      livemode boolean not null,
      carrier text not null check (carrier in ('dropp', 'posturinn')),
      status text not null check (status in
        ('pending', 'booked', 'in_transit', 'ready_for_pickup', 'collected', 'returned', 'canceled')),
      pickup_point jsonb not null,
      checkout_session_id text not null references checkout_sessions(id),
      recipient_name text,
      recipient_email text,
      recipient_phone text,
      carrier_order_id text,
      tracking_number text,
      booked_at timestamptz,
      canceled_at timestamptz,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      -- One delivery per session however often payment is reported (the booking's idempotency key).
      constraint deliveries_session_unique unique (checkout_session_id)
    );
    create index deliveries_tenant_created on deliveries (merchant_id, livemode, created_at desc, id desc);

    create table platform_connections (
      id text primary key,
      merchant_id text not null references merchants(id),
      livemode boolean not null,
      platform text not null check (platform in ('woocommerce', 'shopify')),
      shop text not null,
      secret_sealed text not null,
      claim_payment_methods text[] not null default '{}',
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      deleted_at timestamptz
    );
    -- The inbound webhook finds its connection from the platform's own header: one live shop each.
    create unique index platform_connections_shop on platform_connections (platform, shop) where deleted_at is null;
    create index platform_connections_tenant on platform_connections (merchant_id, livemode, created_at desc, id desc);

    create table platform_webhook_receipts (
      connection_id text not null references platform_connections(id),
      dedup_key text not null,
      topic text not null,
      created_at timestamptz not null default now(),
      primary key (connection_id, dedup_key)
    );

    create table platform_orders (
      connection_id text not null references platform_connections(id),
      order_id text not null,
      merchant_id text not null references merchants(id),
      livemode boolean not null,
      checkout_session_id text references checkout_sessions(id),
      claim_id text references claims(id),
      status text not null,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      primary key (connection_id, order_id)
    );
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    drop table platform_orders; drop table platform_webhook_receipts; drop table platform_connections;
    drop table deliveries;
    alter table checkout_sessions drop column pickup_point, drop column pickup_point_carriers;
    alter table merchants drop column delivery_carriers;
  `);
}
