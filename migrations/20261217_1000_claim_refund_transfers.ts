import type { Knex } from 'knex';

/**
 * Refunds of kröfur (decision 0101). A krafa has no card to refund to: the money goes back to the
 * payer's bank account as a credit transfer in the merchant's next payout file, so such a refund is
 * `pending` until the bank statement books that transfer. Its destination (the payer's 12-digit
 * account, from the bank's payment notification, and kennitala) is kept on the refund, and bank
 * sync matches the booked debit to the refund (`refund`).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    alter table refunds drop constraint refunds_status_check;
    alter table refunds add constraint refunds_status_check
      check (status in ('pending', 'succeeded', 'failed'));
    alter table refunds
      add column destination_account text check (destination_account ~ '^[0-9]{12}$'),
      add column destination_kennitala text check (destination_kennitala ~ '^[0-9]{10}$'),
      add column destination_name text,
      add column succeeded_at timestamptz;
    -- A refund without a card authorization is a bank transfer: it names its payer.
    alter table refunds add constraint refunds_bank_transfer_payer
      check (acquirer_reference is not null or destination_kennitala is not null);
    create index refunds_pending on refunds (merchant_id, livemode) where status = 'pending';

    alter table bank_matches drop constraint bank_matches_kind_check;
    alter table bank_matches add constraint bank_matches_kind_check
      check (kind in ('claim_payment', 'claim_lump_sum', 'acquirer_deposit', 'payout', 'refund', 'manual'));
    alter table bank_entries drop constraint bank_entries_matched_kind_check;
    alter table bank_entries add constraint bank_entries_matched_kind_check
      check (matched_kind in ('claim_payment', 'claim_lump_sum', 'acquirer_deposit', 'payout', 'refund'));
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    alter table bank_entries drop constraint bank_entries_matched_kind_check;
    alter table bank_entries add constraint bank_entries_matched_kind_check
      check (matched_kind in ('claim_payment', 'claim_lump_sum', 'acquirer_deposit', 'payout'));
    alter table bank_matches drop constraint bank_matches_kind_check;
    alter table bank_matches add constraint bank_matches_kind_check
      check (kind in ('claim_payment', 'claim_lump_sum', 'acquirer_deposit', 'payout', 'manual'));
    drop index refunds_pending;
    alter table refunds drop constraint refunds_bank_transfer_payer;
    alter table refunds drop column destination_account, drop column destination_kennitala,
      drop column destination_name, drop column succeeded_at;
    alter table refunds drop constraint refunds_status_check;
    alter table refunds add constraint refunds_status_check check (status in ('succeeded', 'failed'));
  `);
}
