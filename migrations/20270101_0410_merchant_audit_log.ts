import type { Knex } from 'knex';

/**
 * The merchant's audit log (decision 0227): one row per write made through the dashboard or the
 * API, written in the transaction of the change itself. Append-only: a trigger refuses every
 * UPDATE, and every DELETE of a row younger than the retention period (730 days), which is all the
 * maintenance job's pruning may remove. Dashboard sessions gain the address and browser they began
 * from, so members can tell their own sessions apart and end them.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table merchant_audit_entries (
      id text primary key,
      merchant_id text not null references merchants(id),
      livemode boolean not null,
      occurred_at timestamptz not null default now(),
      actor_type text not null check (actor_type in ('member', 'api_key', 'pos_device')),
      actor_id text not null,
      client_address text,
      request_id text,
      action text not null,
      object_type text,
      object_id text,
      changes jsonb not null default '{}'::jsonb
    );
    create index merchant_audit_entries_merchant on merchant_audit_entries (merchant_id, occurred_at desc, id desc);
    create index merchant_audit_entries_occurred on merchant_audit_entries (occurred_at);

    create function merchant_audit_entries_append_only() returns trigger language plpgsql as $$
    begin
      if tg_op = 'DELETE' and old.occurred_at < now() - interval '730 days' then
        return old;
      end if;
      raise exception 'merchant_audit_entries is append-only (decision 0227)' using errcode = 'insufficient_privilege';
    end;
    $$;
    create trigger merchant_audit_entries_append_only
      before update or delete on merchant_audit_entries
      for each row execute function merchant_audit_entries_append_only();

    alter table dashboard_sessions add column client_address text, add column user_agent text;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    alter table dashboard_sessions drop column client_address, drop column user_agent;
    drop table merchant_audit_entries;
    drop function merchant_audit_entries_append_only();
  `);
}
