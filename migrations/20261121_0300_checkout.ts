import type { Knex } from 'knex';

// Checkout and card payments: payment methods (tokenized cards), payment intents, refunds,
// payment links and checkout sessions. Money columns are bigint ISK; every money movement has a
// unique constraint on its business identity (one payment intent per session, one refund row per
// (payment intent, idempotency key)), and refunds can never exceed the captured amount (CHECK).
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table payment_methods (
      id text primary key,
      merchant_id text not null references merchants(id),
      livemode boolean not null,
      customer_id text,
      type text not null default 'card' check (type = 'card'),
      -- The acquirer's token; the card number itself is never stored.
      acquirer_token text not null,
      card_brand text not null,
      card_last4 text not null check (card_last4 ~ '^[0-9]{4}$'),
      card_exp_month integer not null check (card_exp_month between 1 and 12),
      card_exp_year integer not null check (card_exp_year between 2000 and 2200),
      wallet text check (wallet in ('apple_pay', 'google_pay')),
      metadata jsonb not null default '{}',
      created_at timestamptz not null default now(),
      detached_at timestamptz,
      unique (id, merchant_id, livemode),
      foreign key (customer_id, merchant_id, livemode) references customers (id, merchant_id, livemode)
    );
    create index payment_methods_customer on payment_methods (customer_id, created_at, id)
      where customer_id is not null;
    create index payment_methods_scope on payment_methods (merchant_id, livemode, created_at, id);

    alter table customers add foreign key (default_payment_method_id, merchant_id, livemode)
      references payment_methods (id, merchant_id, livemode);

    create table payment_links (
      id text primary key,
      merchant_id text not null references merchants(id),
      livemode boolean not null,
      active boolean not null default true,
      -- The session template: what every visit's new checkout session is created from.
      template jsonb not null,
      completed_sessions_limit integer check (completed_sessions_limit > 0),
      completed_sessions_count integer not null default 0 check (completed_sessions_count >= 0),
      metadata jsonb not null default '{}',
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      unique (id, merchant_id, livemode),
      check (completed_sessions_limit is null or completed_sessions_count <= completed_sessions_limit)
    );
    create index payment_links_scope on payment_links (merchant_id, livemode, created_at, id);

    create table checkout_sessions (
      id text primary key,
      merchant_id text not null references merchants(id),
      livemode boolean not null,
      mode text not null default 'payment' check (mode in ('payment', 'setup')),
      status text not null default 'open' check (status in ('open', 'complete', 'expired')),
      payment_status text not null default 'unpaid'
        check (payment_status in ('paid', 'awaiting_claim', 'unpaid', 'no_payment_required')),
      amount bigint not null check (amount >= 0),
      amount_subtotal bigint not null check (amount_subtotal >= 0),
      discount_amount bigint not null default 0 check (discount_amount >= 0),
      promotion_code_id text,
      currency text not null default 'ISK' check (currency = 'ISK'),
      short_code text not null unique,
      success_url text,
      cancel_url text,
      save_payment_method boolean not null default false,
      customer_id text,
      product_id text,
      subscription_id text,
      payment_intent_id text,
      payment_method_id text,
      customer_email text,
      customer_name text,
      customer_phone text,
      locale text check (locale in ('is', 'en')),
      items jsonb not null default '[]',
      form_fields jsonb,
      custom_fields jsonb,
      allow_custom_amount boolean not null default false,
      minimum_amount bigint check (minimum_amount >= 0),
      payment_link_id text,
      metadata jsonb,
      expires_at timestamptz not null,
      completed_at timestamptz,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      unique (id, merchant_id, livemode),
      check (amount_subtotal = amount + discount_amount),
      check ((status = 'complete') = (completed_at is not null)),
      foreign key (customer_id, merchant_id, livemode) references customers (id, merchant_id, livemode),
      foreign key (product_id, merchant_id, livemode) references products (id, merchant_id, livemode),
      foreign key (promotion_code_id, merchant_id, livemode)
        references promotion_codes (id, merchant_id, livemode),
      foreign key (payment_link_id, merchant_id, livemode) references payment_links (id, merchant_id, livemode),
      foreign key (payment_method_id, merchant_id, livemode)
        references payment_methods (id, merchant_id, livemode)
    );
    create index checkout_sessions_scope on checkout_sessions (merchant_id, livemode, created_at, id);
    -- The expiry sweep reads only open sessions in expiry order.
    create index checkout_sessions_open on checkout_sessions (expires_at) where status = 'open';

    create table payment_intents (
      id text primary key,
      merchant_id text not null references merchants(id),
      livemode boolean not null,
      amount bigint not null check (amount > 0),
      currency text not null default 'ISK' check (currency = 'ISK'),
      status text not null check (status in ('requires_payment_method', 'requires_action',
        'requires_capture', 'processing', 'succeeded', 'canceled')),
      capture_method text not null default 'automatic' check (capture_method in ('automatic', 'manual')),
      -- Which fee applies (spec §1): online card 1.5 %, POS card 0.8 %.
      channel text not null default 'online' check (channel in ('online', 'pos')),
      customer_id text,
      payment_method_id text,
      checkout_session_id text unique,
      description text,
      attempt_count integer not null default 0,
      acquirer_authorization text,
      next_action_url text,
      return_url text,
      last_payment_error jsonb,
      amount_captured bigint not null default 0 check (amount_captured >= 0),
      amount_refunded bigint not null default 0 check (amount_refunded >= 0),
      -- Computed once, at capture, with decimal.js; net = amount_captured - fee_amount.
      fee_amount bigint check (fee_amount >= 0),
      captured_at timestamptz,
      canceled_at timestamptz,
      cancellation_reason text,
      metadata jsonb not null default '{}',
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      unique (id, merchant_id, livemode),
      check (amount_captured <= amount),
      check (amount_refunded <= amount_captured),
      check ((status = 'succeeded') = (captured_at is not null)),
      check (status <> 'succeeded' or fee_amount is not null),
      foreign key (customer_id, merchant_id, livemode) references customers (id, merchant_id, livemode),
      foreign key (payment_method_id, merchant_id, livemode)
        references payment_methods (id, merchant_id, livemode),
      foreign key (checkout_session_id, merchant_id, livemode)
        references checkout_sessions (id, merchant_id, livemode)
    );
    create index payment_intents_scope on payment_intents (merchant_id, livemode, created_at, id);

    alter table checkout_sessions add foreign key (payment_intent_id, merchant_id, livemode)
      references payment_intents (id, merchant_id, livemode);

    create table refunds (
      id text primary key,
      merchant_id text not null references merchants(id),
      livemode boolean not null,
      payment_intent_id text not null,
      amount bigint not null check (amount > 0),
      currency text not null default 'ISK' check (currency = 'ISK'),
      status text not null check (status in ('succeeded', 'failed')),
      reason text check (reason in ('duplicate', 'fraudulent', 'requested_by_customer')),
      -- The client's Idempotency-Key, or the refund's own id when none was sent.
      idempotency_key text not null,
      acquirer_reference text,
      metadata jsonb not null default '{}',
      created_at timestamptz not null default now(),
      unique (id, merchant_id, livemode),
      unique (payment_intent_id, idempotency_key),
      foreign key (payment_intent_id, merchant_id, livemode)
        references payment_intents (id, merchant_id, livemode)
    );
    create index refunds_payment_intent on refunds (payment_intent_id, created_at, id);
    create index refunds_scope on refunds (merchant_id, livemode, created_at, id);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    drop table refunds;
    alter table checkout_sessions drop constraint checkout_sessions_payment_intent_id_merchant_id_livemode_fkey;
    drop table payment_intents;
    drop table checkout_sessions;
    drop table payment_links;
    alter table customers drop constraint customers_default_payment_method_id_merchant_id_livemode_fkey;
    drop table payment_methods;
  `);
}
