import type { Knex } from 'knex';

/**
 * Claims in checkout and subscriptions: the session or renewal a claim pays (at most one claim each;
 * decisions 0063, 0064); subscriptions collected by claim; renewals awaiting their claim.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    alter table claims add column checkout_session_id text references checkout_sessions(id);
    create unique index claims_checkout_session on claims (checkout_session_id)
      where checkout_session_id is not null;

    alter table subscriptions add column collection_method text not null default 'charge_automatically'
      check (collection_method in ('charge_automatically', 'claim'));
    alter table claims add column renewal_id text references renewals(id);
    create unique index claims_renewal on claims (renewal_id) where renewal_id is not null;
    alter table renewals drop constraint renewals_status_check;
    alter table renewals add constraint renewals_status_check
      check (status in ('pending', 'paid', 'failed', 'void', 'awaiting_claim'));
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    alter table renewals drop constraint renewals_status_check;
    alter table renewals add constraint renewals_status_check
      check (status in ('pending', 'paid', 'failed', 'void'));
    alter table claims drop column renewal_id, drop column checkout_session_id;
    alter table subscriptions drop column collection_method;
  `);
}
