import type { Knex } from 'knex';

/**
 * The merchant's VAT return period (decision 0238): two months (Reg. 667/1995 art. 1) or the
 * calendar year for small filers (art. 3). Indexes so a period's documents are read by their
 * issue date within the merchant's scope.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    alter table merchants add column vat_period text not null default 'two_month'
      check (vat_period in ('two_month', 'yearly'));
    create index invoices_issued on invoices (merchant_id, livemode, issued_at, id);
    create index credit_notes_issued on credit_notes (merchant_id, livemode, issued_at, id);
    create index pos_refunds_tenant on pos_refunds (merchant_id, livemode, created_at, id);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    drop index pos_refunds_tenant;
    drop index credit_notes_issued;
    drop index invoices_issued;
    alter table merchants drop column vat_period;
  `);
}
