import type { Knex } from 'knex';

/**
 * Passkeys (WebAuthn credentials) of dashboard members, a second factor beside the authenticator
 * app (decision 0223): the credential id, its public key (not a secret) and signature counter; and
 * the one challenge a session has outstanding, taken once by the answer that uses it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table user_passkeys (
      id text primary key,
      user_id text not null references users(id),
      public_key bytea not null,
      counter bigint not null default 0,
      transports text[] not null default '{}',
      created_at timestamptz not null default now(),
      last_used_at timestamptz
    );
    create index user_passkeys_user on user_passkeys (user_id);

    alter table dashboard_sessions add column webauthn_challenge text;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    alter table dashboard_sessions drop column webauthn_challenge;
    drop table user_passkeys;
  `);
}
