import type { Knex } from 'knex';

/**
 * Second factors of dashboard members (decision 0220): a TOTP secret per user, sealed at rest
 * like webhook secrets, with the last time step accepted so a code works once; recovery codes,
 * stored as hashes and spent once; the state of a session between password and second factor;
 * the time of its last full sign-in for re-authentication (decision 0222); and the merchant's
 * settings: second factor required of every member, and the refund amount above which a refund
 * asks for a recent sign-in.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table user_totp (
      user_id text primary key references users(id),
      secret text not null,
      confirmed_at timestamptz,
      last_step bigint,
      created_at timestamptz not null default now()
    );

    create table user_recovery_codes (
      user_id text not null references users(id),
      code_hash text not null,
      used_at timestamptz,
      created_at timestamptz not null default now(),
      primary key (user_id, code_hash)
    );

    alter table dashboard_sessions
      add column factor_pending boolean not null default false,
      add column must_enrol boolean not null default false,
      add column authenticated_at timestamptz not null default now();

    alter table merchants
      add column require_second_factor boolean not null default false,
      add column reauth_refund_above bigint not null default 100000
        constraint merchants_reauth_refund_above_check check (reauth_refund_above >= 0);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    alter table merchants drop column require_second_factor, drop column reauth_refund_above;
    alter table dashboard_sessions
      drop column factor_pending, drop column must_enrol, drop column authenticated_at;
    drop table user_recovery_codes;
    drop table user_totp;
  `);
}
