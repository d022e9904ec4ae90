import type { Knex } from 'knex';

/**
 * A dashboard user's language (is/en), stored when they switch it, so the dashboard speaks it on
 * every browser and device they sign in from; null until they choose.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    alter table users add column locale text;
    alter table users add constraint users_locale_check check (locale in ('is', 'en'));
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`alter table users drop column locale;`);
}
