import type { Knex } from 'knex';

// Merchant accounts: the writable profile (spec §2.3) and the onboarding state on `merchants`; one
// checkout theme row per merchant (spec §2.2, §4.3); dashboard users (merchant users and operators),
// their sessions and sign-in throttle; operator API tokens; device authorizations (spec §4.2, §5.4).
// Secrets (passwords, session tokens, operator tokens, device codes) are stored only as hashes.
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    alter table merchants
      add column merchant_type text check (merchant_type in ('company', 'individual')),
      add column kennitala text check (kennitala ~ '^[0-9]{10}$'),
      add column phone text check (length(phone) <= 50),
      add column website text check (length(website) <= 255),
      add column business_description text check (length(business_description) <= 2000),
      add column bank_account text check (bank_account ~ '^[0-9]{4}-[0-9]{2}-[0-9]{6}$'),
      add column legal_address jsonb,
      add column application_status text not null default 'unsubmitted'
        check (application_status in ('unsubmitted', 'in_review', 'approved', 'rejected')),
      add column application_submitted_at timestamptz,
      add column application_reviewed_at timestamptz,
      add column application_reviewed_by text,
      add column application_rejection_reason text,
      add column card_acquirer_activated_at timestamptz,
      add column claims_agreement_signed_at timestamptz,
      add column features jsonb not null default '{}';
    create index merchants_application on merchants (application_status, application_submitted_at, id);

    -- One row per merchant, shared by both environments; livemode says which one owns it (spec §4.3
    -- rule 3). The checks repeat the API's validation as the last line of defence: these values are
    -- rendered into the checkout page.
    create table merchant_themes (
      merchant_id text primary key references merchants(id),
      livemode boolean not null,
      primary_color text check (primary_color ~ '^#([0-9a-fA-F]{3}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$'),
      background_color text check (background_color ~ '^#([0-9a-fA-F]{3}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$'),
      font_family text check (font_family ~ '^[A-Za-z0-9][A-Za-z0-9 -]{0,63}$'),
      heading_font_family text check (heading_font_family ~ '^[A-Za-z0-9][A-Za-z0-9 -]{0,63}$'),
      button_roundness text check (button_roundness in ('sharp', 'rounded', 'pill')),
      -- PostgreSQL caps regex repetition counts at 255, so the 1-to-490 bound is a length check.
      logo_url text check (logo_url ~ '^https://[^[:space:]"''<>\\\\[:cntrl:]]+$' and length(logo_url) <= 498),
      source text check (length(source) <= 500),
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    );

    create table users (
      id text primary key,
      kind text not null check (kind in ('merchant', 'operator')),
      merchant_id text references merchants(id),
      email text not null,
      name text,
      password_hash text not null,
      created_at timestamptz not null default now(),
      disabled_at timestamptz,
      check ((kind = 'merchant') = (merchant_id is not null))
    );
    create unique index users_email on users (lower(email));
    create index users_merchant on users (merchant_id);

    create table dashboard_sessions (
      id text primary key,
      token_hash text not null unique,
      user_id text not null references users(id),
      csrf_token text not null,
      created_at timestamptz not null default now(),
      expires_at timestamptz not null,
      last_seen_at timestamptz not null default now()
    );
    create index dashboard_sessions_user on dashboard_sessions (user_id);

    -- Keyed by the address typed, whether or not a user has it, so a lockout tells nothing about
    -- which addresses exist.
    create table sign_in_throttle (
      email text primary key,
      failures integer not null default 0,
      first_failure_at timestamptz not null default now(),
      locked_until timestamptz
    );

    create table operator_tokens (
      id text primary key,
      user_id text not null references users(id),
      token_hash text not null unique,
      last4 text not null,
      created_at timestamptz not null default now(),
      revoked_at timestamptz,
      last_used_at timestamptz
    );

    create table device_authorizations (
      id text primary key,
      device_code_hash text not null unique,
      user_code text not null check (user_code ~ '^[BCDFGHJKLMNPQRSTVWXZ]{8}$'),
      client_name text not null check (length(client_name) between 1 and 100),
      status text not null check (status in ('pending', 'approved', 'denied', 'consumed')),
      poll_interval integer not null check (poll_interval > 0),
      expires_at timestamptz not null,
      last_polled_at timestamptz,
      merchant_id text references merchants(id),
      decided_by text references users(id),
      decided_at timestamptz,
      api_key_id text references api_keys(id),
      created_at timestamptz not null default now()
    );
    -- A user code names one pending request at a time; a collision draws a new code.
    create unique index device_authorizations_user_code on device_authorizations (user_code)
      where status = 'pending';
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    drop table device_authorizations;
    drop table operator_tokens;
    drop table sign_in_throttle;
    drop table dashboard_sessions;
    drop table users;
    drop table merchant_themes;
    drop index merchants_application;
    alter table merchants
      drop column merchant_type, drop column kennitala, drop column phone, drop column website,
      drop column business_description, drop column bank_account, drop column legal_address,
      drop column application_status, drop column application_submitted_at,
      drop column application_reviewed_at, drop column application_reviewed_by,
      drop column application_rejection_reason, drop column card_acquirer_activated_at,
      drop column claims_agreement_signed_at, drop column features;
  `);
}
