import type { Knex } from 'knex';

/**
 * Self-serve accounts (decisions 0115-0117): a user's verified email, single-use tokens
 * sent by email (verification, password reset) kept as hashes, and team invitations. Every user
 * from before sign-up existed was made by an operator or the demo seed, so counts as verified.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    alter table users add column email_verified_at timestamptz;
    update users set email_verified_at = created_at;

    create table account_tokens (
      id text primary key,
      user_id text not null references users (id) on delete cascade,
      purpose text not null check (purpose in ('verify_email', 'reset_password')),
      token_hash text not null unique,
      -- The address the token was sent to: a verification proves this one, not a later one.
      email text not null,
      created_at timestamptz not null default now(),
      expires_at timestamptz not null,
      used_at timestamptz
    );
    create index account_tokens_user on account_tokens (user_id, purpose);

    create table team_invitations (
      id text primary key,
      merchant_id text not null references merchants (id),
      email text not null,
      role text not null check (role in ('owner', 'developer', 'finance', 'read_only')),
      invited_by text not null references users (id),
      token_hash text not null unique,
      created_at timestamptz not null default now(),
      expires_at timestamptz not null,
      accepted_at timestamptz,
      accepted_user_id text references users (id),
      revoked_at timestamptz
    );
    -- One open invitation per address and merchant: inviting again replaces it.
    create unique index team_invitations_open on team_invitations (merchant_id, lower(email))
      where accepted_at is null and revoked_at is null;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    drop table team_invitations;
    drop table account_tokens;
    alter table users drop column email_verified_at;
  `);
}
