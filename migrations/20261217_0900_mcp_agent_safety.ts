import type { Knex } from 'knex';

/**
 * Agent safety of the MCP server (decisions 0121, 0122): the merchant's MCP settings (confirmation
 * of test refunds, daily refund limits per key), each key's refunds per Reykjavik day, and the
 * short-lived confirmation tokens of previewed refunds.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    alter table merchants add column mcp jsonb not null default '{}';

    create table mcp_refund_usage (
      api_key_id text not null references api_keys(id),
      day date not null,
      merchant_id text not null references merchants(id),
      livemode boolean not null,
      refund_count integer not null check (refund_count >= 0),
      refund_amount bigint not null check (refund_amount >= 0),
      primary key (api_key_id, day)
    );

    create table mcp_confirmations (
      id text primary key,
      merchant_id text not null references merchants(id),
      livemode boolean not null,
      api_key_id text not null references api_keys(id),
      token_hash text not null unique,
      tool text not null,
      request_hash text not null,
      payment_intent_id text not null,
      amount bigint not null check (amount > 0),
      expires_at timestamptz not null,
      created_at timestamptz not null default now()
    );
    create index mcp_confirmations_expires on mcp_confirmations (expires_at);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    drop table mcp_confirmations;
    drop table mcp_refund_usage;
    alter table merchants drop column mcp;
  `);
}
