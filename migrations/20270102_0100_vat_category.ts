import type { Knex } from 'knex';

/**
 * A VAT category beside the rate (decision 0234) where a rate is kept in a column: products (their
 * prices, checkout items and till lines take it) and the till's sale lines. Null: the category is
 * derived as before (S at 11/24, Z at 0, O for a seller without a VAT number). Checkout items and
 * invoice lines are JSON and carry the same three fields. The checks repeat the API's rules so no
 * path can store a combination the e-invoice rules refuse (BR-S-05, BR-Z-05, BR-E-05, BR-E-10).
 */
const columns = (table: string) => `
  alter table ${table}
    add column vat_category text check (vat_category in ('S', 'Z', 'E', 'O')),
    add column vat_exemption_reason text check (length(vat_exemption_reason) between 1 and 300),
    add column vat_exemption_reason_code text check (vat_exemption_reason_code ~ '^VATEX-[A-Z0-9-]{1,40}$'),
    add constraint ${table}_vat_category_rate check (
      vat_category is null
      or (vat_category = 'S' and vat_rate in (11, 24))
      or (vat_category in ('Z', 'E', 'O') and vat_rate = 0)),
    add constraint ${table}_vat_exemption check (
      case when vat_category = 'E' then coalesce(vat_exemption_reason, vat_exemption_reason_code) is not null
           when vat_category = 'O' then true
           else vat_exemption_reason is null and vat_exemption_reason_code is null end);`;

export async function up(knex: Knex): Promise<void> {
  await knex.raw(columns('products') + columns('pos_sale_lines'));
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['products', 'pos_sale_lines'])
    await knex.raw(`alter table ${table}
      drop constraint ${table}_vat_exemption, drop constraint ${table}_vat_category_rate,
      drop column vat_exemption_reason_code, drop column vat_exemption_reason, drop column vat_category`);
}
