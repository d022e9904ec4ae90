import type { Knex } from 'knex';

/** The merchant's rule for the dates of the kröfur issued on its behalf (decision 0065); {} = defaults. */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`alter table merchants add column claim_terms jsonb not null default '{}'`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`alter table merchants drop column claim_terms`);
}
