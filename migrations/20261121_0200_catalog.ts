import type { Knex } from 'knex';

// Catalog and customers: products with their prices and variants, customers (optionally bound to a
// test clock), coupons, promotion codes and coupon redemptions. Cross-references are composite
// foreign keys on (id, merchant_id, livemode), so no row can point into another merchant or mode.
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    -- Minimal: the subscriptions work adds the advancing machinery; customers only bind to a clock.
    create table test_clocks (
      id text primary key,
      merchant_id text not null references merchants(id),
      livemode boolean not null check (livemode = false),
      name text,
      frozen_time timestamptz not null,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      unique (id, merchant_id, livemode)
    );

    create table products (
      id text primary key,
      merchant_id text not null references merchants(id),
      livemode boolean not null,
      name text not null check (length(name) between 1 and 255),
      description text,
      images text[] not null default '{}',
      active boolean not null default true,
      vat_rate integer not null check (vat_rate in (0, 11, 24)),
      default_price_id text,
      metadata jsonb not null default '{}',
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      deleted_at timestamptz,
      unique (id, merchant_id, livemode)
    );
    create index products_scope on products (merchant_id, livemode, created_at, id) where deleted_at is null;

    create table product_variants (
      id text primary key,
      merchant_id text not null references merchants(id),
      livemode boolean not null,
      product_id text not null,
      name text not null check (length(name) between 1 and 255),
      price_id text,
      -- null: stock is not tracked.
      stock integer check (stock >= 0),
      active boolean not null default true,
      metadata jsonb not null default '{}',
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      deleted_at timestamptz,
      unique (id, merchant_id, livemode),
      foreign key (product_id, merchant_id, livemode) references products (id, merchant_id, livemode)
    );
    create index product_variants_product on product_variants (product_id, created_at, id)
      where deleted_at is null;

    create table prices (
      id text primary key,
      merchant_id text not null references merchants(id),
      livemode boolean not null,
      product_id text not null,
      variant_id text,
      active boolean not null default true,
      currency text not null default 'ISK' check (currency = 'ISK'),
      unit_amount bigint not null check (unit_amount >= 0),
      type text not null check (type in ('one_time', 'recurring')),
      recurring_interval text check (recurring_interval in ('week', 'month', 'year')),
      recurring_interval_count integer check (recurring_interval_count >= 1),
      nickname text,
      replaces_id text references prices(id),
      replaced_by_id text references prices(id),
      metadata jsonb not null default '{}',
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      unique (id, merchant_id, livemode),
      foreign key (product_id, merchant_id, livemode) references products (id, merchant_id, livemode),
      foreign key (variant_id, merchant_id, livemode) references product_variants (id, merchant_id, livemode),
      check (
        (type = 'recurring' and recurring_interval is not null and recurring_interval_count is not null)
        or (type = 'one_time' and recurring_interval is null and recurring_interval_count is null)
      )
    );
    create index prices_scope on prices (merchant_id, livemode, created_at, id);
    create index prices_product on prices (product_id, created_at, id);
    -- A price is replaced at most once, so its successor is unambiguous.
    create unique index prices_replaces on prices (replaces_id) where replaces_id is not null;

    alter table products add foreign key (default_price_id, merchant_id, livemode)
      references prices (id, merchant_id, livemode);
    alter table product_variants add foreign key (price_id, merchant_id, livemode)
      references prices (id, merchant_id, livemode);

    -- Past sales keep their price: amount and terms of a price never change once written.
    create function prices_immutable_terms() returns trigger language plpgsql as $$
    begin
      if new.unit_amount <> old.unit_amount or new.currency <> old.currency or new.type <> old.type
         or new.recurring_interval is distinct from old.recurring_interval
         or new.recurring_interval_count is distinct from old.recurring_interval_count
         or new.product_id <> old.product_id or new.variant_id is distinct from old.variant_id then
        raise exception 'price % cannot change amount or terms; replace it', old.id
          using errcode = 'check_violation';
      end if;
      return new;
    end $$;
    create trigger prices_immutable_terms before update on prices
      for each row execute function prices_immutable_terms();

    create table customers (
      id text primary key,
      merchant_id text not null references merchants(id),
      livemode boolean not null,
      name text,
      email text,
      phone text,
      kennitala text check (kennitala ~ '^[0-9]{10}$'),
      description text,
      address jsonb,
      -- Payment methods arrive with payments; the reference is kept here from the start.
      default_payment_method_id text,
      test_clock_id text,
      metadata jsonb not null default '{}',
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      deleted_at timestamptz,
      unique (id, merchant_id, livemode),
      foreign key (test_clock_id, merchant_id, livemode) references test_clocks (id, merchant_id, livemode)
    );
    create index customers_scope on customers (merchant_id, livemode, created_at, id) where deleted_at is null;
    create index customers_email on customers (merchant_id, livemode, lower(email)) where deleted_at is null;
    create index customers_kennitala on customers (merchant_id, livemode, kennitala) where deleted_at is null;

    create table coupons (
      id text primary key,
      merchant_id text not null references merchants(id),
      livemode boolean not null,
      name text,
      percent_off numeric(5, 2) check (percent_off > 0 and percent_off <= 100),
      amount_off bigint check (amount_off > 0),
      currency text check (currency = 'ISK'),
      duration text not null check (duration in ('once', 'repeating', 'forever')),
      duration_in_months integer check (duration_in_months > 0),
      duration_in_periods integer check (duration_in_periods > 0),
      max_redemptions integer check (max_redemptions > 0),
      times_redeemed integer not null default 0 check (times_redeemed >= 0),
      redeem_by timestamptz,
      applies_to_products text[],
      metadata jsonb not null default '{}',
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      deleted_at timestamptz,
      unique (id, merchant_id, livemode),
      check ((percent_off is null) <> (amount_off is null)),
      check ((amount_off is null) = (currency is null)),
      check (
        (duration = 'repeating' and (duration_in_months is null) <> (duration_in_periods is null))
        or (duration <> 'repeating' and duration_in_months is null and duration_in_periods is null)
      ),
      -- The last line of defence for exact redemption counting.
      check (max_redemptions is null or times_redeemed <= max_redemptions)
    );
    create index coupons_scope on coupons (merchant_id, livemode, created_at, id) where deleted_at is null;

    create table promotion_codes (
      id text primary key,
      merchant_id text not null references merchants(id),
      livemode boolean not null,
      code text not null check (code ~ '^[A-Za-z0-9_-]{1,64}$'),
      coupon_id text not null,
      active boolean not null default true,
      customer_id text,
      expires_at timestamptz,
      max_redemptions integer check (max_redemptions > 0),
      times_redeemed integer not null default 0 check (times_redeemed >= 0),
      first_time_transaction boolean not null default false,
      minimum_amount bigint check (minimum_amount >= 0),
      metadata jsonb not null default '{}',
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      unique (id, merchant_id, livemode),
      foreign key (coupon_id, merchant_id, livemode) references coupons (id, merchant_id, livemode),
      foreign key (customer_id, merchant_id, livemode) references customers (id, merchant_id, livemode),
      check (max_redemptions is null or times_redeemed <= max_redemptions)
    );
    create index promotion_codes_scope on promotion_codes (merchant_id, livemode, created_at, id);
    -- Codes are case-insensitive and unique among active codes; a deactivated code frees its text.
    create unique index promotion_codes_active_code on promotion_codes (merchant_id, livemode, lower(code))
      where active;

    create table coupon_redemptions (
      id text primary key,
      merchant_id text not null references merchants(id),
      livemode boolean not null,
      coupon_id text not null,
      promotion_code_id text,
      customer_id text,
      -- Business identity of the redeeming object (e.g. the checkout session id): one redemption each.
      idempotency_key text not null check (length(idempotency_key) between 1 and 255),
      amount_subtotal bigint not null check (amount_subtotal >= 0),
      discount_amount bigint not null check (discount_amount >= 0),
      amount bigint not null check (amount >= 0),
      created_at timestamptz not null default now(),
      check (amount_subtotal = amount + discount_amount),
      unique (merchant_id, livemode, idempotency_key),
      foreign key (coupon_id, merchant_id, livemode) references coupons (id, merchant_id, livemode),
      foreign key (promotion_code_id, merchant_id, livemode)
        references promotion_codes (id, merchant_id, livemode),
      foreign key (customer_id, merchant_id, livemode) references customers (id, merchant_id, livemode)
    );
    create index coupon_redemptions_customer on coupon_redemptions (customer_id) where customer_id is not null;
    create index coupon_redemptions_coupon on coupon_redemptions (coupon_id);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    drop table coupon_redemptions;
    drop table promotion_codes;
    drop table coupons;
    drop table customers;
    alter table product_variants drop constraint product_variants_price_id_merchant_id_livemode_fkey;
    alter table products drop constraint products_default_price_id_merchant_id_livemode_fkey;
    drop table prices;
    drop function prices_immutable_terms();
    drop table product_variants;
    drop table products;
    drop table test_clocks;
  `);
}
