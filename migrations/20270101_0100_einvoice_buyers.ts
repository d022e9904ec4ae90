import type { Knex } from 'knex';

/**
 * What makes a customer an e-invoice buyer (decision 0210): the merchant's mark that it buys as a
 * business, its GLN and its Peppol participant id. A customer whose kennitala is a legal entity's is
 * a business without the mark.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    alter table customers add column business boolean not null default false;
    alter table customers add column gln text;
    alter table customers add column peppol_id text;
    alter table customers add constraint customers_gln_check check (gln ~ '^[0-9]{13}$');
    alter table customers add constraint customers_peppol_id_check
      check (peppol_id ~ '^(0196:[0-9]{10}|0088:[0-9]{13})$');
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    alter table customers drop column peppol_id;
    alter table customers drop column gln;
    alter table customers drop column business;
  `);
}
