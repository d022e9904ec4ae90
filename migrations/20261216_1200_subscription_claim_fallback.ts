import type { Knex } from 'knex';

/**
 * The card → krafa fallback (decision 0105): the merchant's default (`merchants.dunning`, jsonb of
 * what was set; {} = off), the subscription's own choice (null = the merchant's), and the krafa a
 * past_due subscription waits for once its card retries ran out.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`alter table merchants add column dunning jsonb not null default '{}'`);
  await knex.raw(`
    alter table subscriptions
      add column claim_fallback boolean,
      add column dunning_claim_id text references claims(id)`);
  // The claim payments sync looks up the subscription waiting for a paid krafa.
  await knex.raw(
    `create index subscriptions_dunning_claim on subscriptions (dunning_claim_id) where dunning_claim_id is not null`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`alter table subscriptions drop column dunning_claim_id, drop column claim_fallback`);
  await knex.raw(`alter table merchants drop column dunning`);
}
