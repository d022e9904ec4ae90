import type { Knex } from 'knex';

// Subscriptions and their renewals, test clock advancing, clock waits of workflows bound to a
// clock, and billing portal sessions. A renewal is unique per (subscription, period_start): the
// last line of defence against charging a period twice, whatever a crashed worker retries.
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    alter table test_clocks
      add column status text not null default 'ready' check (status in ('ready', 'advancing')),
      add column advancing_to timestamptz,
      add column deleted_at timestamptz;

    create table subscriptions (
      id text primary key,
      merchant_id text not null references merchants(id),
      livemode boolean not null,
      customer_id text not null,
      price_id text not null,
      quantity integer not null default 1 check (quantity >= 1),
      status text not null check (status in ('incomplete', 'incomplete_expired', 'trialing', 'active',
        'past_due', 'unpaid', 'canceled')),
      payment_method_id text,
      test_clock_id text,
      billing_cycle_anchor timestamptz not null,
      -- -1 while the first period is not yet paid (incomplete, or a trial); 0 is the anchor's period.
      current_period_index integer not null,
      current_period_start timestamptz not null,
      current_period_end timestamptz not null,
      trial_start timestamptz,
      trial_end timestamptz,
      -- Set once trial_ended is emitted, so a retried step never emits it twice.
      trial_ended_at timestamptz,
      -- A new payment method asks the lifecycle workflow to retry the open renewal now.
      payment_retry_requested boolean not null default false,
      missing_payment_method text not null default 'cancel' check (missing_payment_method in ('cancel', 'pause')),
      paused boolean not null default false,
      cancel_at_period_end boolean not null default false,
      cancellation_reason text,
      canceled_at timestamptz,
      ended_at timestamptz,
      pending_price_id text,
      -- Prorations of immediate changes, added to the next renewal (negative: a credit).
      proration_amount bigint not null default 0,
      coupon_id text,
      -- The period index the coupon was applied at: its duration counts periods from there.
      discount_period_index integer,
      discount_start timestamptz,
      dunning_retry_days integer[] not null default '{1,3,7,14}',
      dunning_end_state text not null default 'canceled'
        check (dunning_end_state in ('canceled', 'unpaid', 'past_due')),
      -- When the open renewal first failed; null outside dunning.
      payment_failed_at timestamptz,
      metadata jsonb not null default '{}',
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      unique (id, merchant_id, livemode),
      foreign key (customer_id, merchant_id, livemode) references customers (id, merchant_id, livemode),
      foreign key (price_id, merchant_id, livemode) references prices (id, merchant_id, livemode),
      foreign key (pending_price_id, merchant_id, livemode) references prices (id, merchant_id, livemode),
      foreign key (payment_method_id, merchant_id, livemode) references payment_methods (id, merchant_id, livemode),
      foreign key (coupon_id, merchant_id, livemode) references coupons (id, merchant_id, livemode),
      foreign key (test_clock_id, merchant_id, livemode) references test_clocks (id, merchant_id, livemode)
    );
    create index subscriptions_scope on subscriptions (merchant_id, livemode, created_at, id);
    create index subscriptions_customer on subscriptions (customer_id, created_at, id);
    -- What a billing run pages through: active, renewing, due.
    create index subscriptions_due on subscriptions (livemode, current_period_end, id)
      where status = 'active' and not cancel_at_period_end and test_clock_id is null;
    create index subscriptions_clock_due on subscriptions (test_clock_id, current_period_end, id)
      where status = 'active' and not cancel_at_period_end and test_clock_id is not null;

    create table renewals (
      id text primary key,
      merchant_id text not null references merchants(id),
      livemode boolean not null,
      subscription_id text not null references subscriptions(id),
      period_index integer not null,
      period_start timestamptz not null,
      period_end timestamptz not null,
      price_id text not null,
      quantity integer not null,
      amount_subtotal bigint not null check (amount_subtotal >= 0),
      discount_amount bigint not null check (discount_amount >= 0),
      amount bigint not null check (amount >= 0),
      vat_rate integer not null,
      vat_amount bigint not null check (vat_amount >= 0),
      -- The part of amount_subtotal that settles prorations of mid-period changes.
      proration_amount bigint not null default 0,
      coupon_id text,
      status text not null check (status in ('pending', 'paid', 'failed', 'void')),
      attempt_count integer not null default 1,
      payment_intent_id text,
      last_error text,
      paid_at timestamptz,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      check (amount_subtotal = amount + discount_amount),
      unique (subscription_id, period_start),
      foreign key (payment_intent_id) references payment_intents (id) deferrable initially deferred
    );
    create index renewals_subscription on renewals (subscription_id, period_index);
    create index renewals_pending on renewals (subscription_id) where status = 'pending';

    alter table payment_intents add column subscription_id text references subscriptions(id);
    create index payment_intents_subscription on payment_intents (subscription_id) where subscription_id is not null;

    -- A workflow bound to a test clock waits here, not on a timer: the clock wakes it when an
    -- advance reaches due_at (architecture, "Time inside workflows goes through one helper").
    create table test_clock_waits (
      workflow_id text primary key,
      test_clock_id text not null references test_clocks(id) on delete cascade,
      due_at timestamptz not null
    );
    create index test_clock_waits_due on test_clock_waits (test_clock_id, due_at);

    create table billing_portal_sessions (
      id text primary key,
      merchant_id text not null references merchants(id),
      livemode boolean not null,
      customer_id text not null,
      return_url text not null,
      locale text check (locale in ('is', 'en')),
      -- Prices the customer may switch to in the portal (the merchant's choice per session).
      allowed_prices text[] not null default '{}',
      token_hash text not null unique,
      expires_at timestamptz not null,
      opened_at timestamptz,
      created_at timestamptz not null default now(),
      foreign key (customer_id, merchant_id, livemode) references customers (id, merchant_id, livemode)
    );
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    drop table billing_portal_sessions;
    drop table test_clock_waits;
    alter table payment_intents drop column subscription_id;
    drop table renewals;
    drop table subscriptions;
    alter table test_clocks drop column status, drop column advancing_to, drop column deleted_at;
  `);
}
