import type { Knex } from './knex';
import { sqlArgs } from './event-batch';
import { NEW_EXCEPTION_ID_SQL } from './bank-exceptions';
import { count, type FileRef } from './bank-matching-sql';
import { matchLateNotifications } from './bank-late-notifications';

export type { FileRef } from './bank-matching-sql';

/** A batch of camt.054 entries just stored: its statement and the entry indexes it covers. */
export interface StoredEntryBatch {
  livemode: boolean;
  statementId: number;
  fromIndex: number;
  toIndex: number;
}

/**
 * The set-based steps of matching one bank file (decision 0090, 0092). They run inside the
 * transaction that stored the file and share temporary tables dropped on its commit, so the
 * repository is made for that transaction rather than for the knex instance.
 */
export function createBankMatchingRepository(trx: Knex.Transaction) {
  // Entries set aside get an exception in the same statement that changes their status.
  const setAside = async (
    f: FileRef,
    kind: string,
    where: string,
    message: string,
    args: unknown[],
  ): Promise<number> =>
    count(
      trx,
      `with hit as (
         update bank_entries e set match_status = 'exception'
           from bank_statements s
          where s.id = e.bank_statement_id and e.bank_file_id = ? and e.livemode = ?
            and e.match_status = 'unmatched' and (${where})
          returning e.id, e.amount, s.account)
       insert into bank_exceptions (id, livemode, bank_file_id, bank_entry_id, detail_index, kind, message, actual_amount)
       select ${NEW_EXCEPTION_ID_SQL}, ?, ?, hit.id, 0, ?, ${message}, hit.amount from hit
       on conflict do nothing`,
      [f.fileId, f.livemode, ...args, f.livemode, f.fileId, kind],
    );

  return {
    /** Entries of a statement whose account is not the connection's collection account. */
    async setAsideForeignAccounts(f: FileRef): Promise<number> {
      return setAside(
        f,
        'unknown_account',
        `not (regexp_replace(s.account, '[^0-9]', '', 'g') = ? or (s.account ~ '^IS[0-9]{24}$' and substr(s.account, 5, 12) = ?))`,
        `'statement account ' || hit.account || ' is not this connection''s collection account'`,
        [f.collectionAccount, f.collectionAccount],
      );
    },

    async setAsideReversals(f: FileRef): Promise<number> {
      return setAside(f, 'reversal', 'e.reversal', `'the bank reversed an entry (RvslInd)'`, []);
    },

    /** Whatever booked entry is still unmatched once every matching step has run. */
    async setAsideUnmatched(f: FileRef): Promise<number> {
      return setAside(
        f,
        'unmatched',
        'e.booked',
        `'no claim payment, deposit or payout matches this entry'`,
        [],
      );
    },

    /** Every transaction detail of the file's entries still open, once, for the joins of the steps. */
    async collectOpenDetails(f: FileRef): Promise<void> {
      await trx.raw(
        `create temp table bank_sync_details on commit drop as
         select e.id as entry_id, s.message_type, e.acct_svcr_ref, e.credit as entry_credit, e.amount as entry_amount,
                (o.idx - 1)::int as detail_index,
                case when (o.x->>'credit')::boolean then 1 else -1 end * (o.x->>'amount')::bigint as signed_amount,
                o.x->'refs'->>'TxId' as tx_id,
                nullif(o.x->'refs'->>'EndToEndId', 'NOTPROVIDED') as end_to_end_id,
                o.x->>'reference' as reference
           from bank_entries e
           join bank_statements s on s.id = e.bank_statement_id
           cross join lateral jsonb_array_elements(e.details) with ordinality as o(x, idx)
          where e.bank_file_id = ? and e.livemode = ? and e.match_status = 'unmatched'`,
        sqlArgs(f.fileId, f.livemode),
      );
      await trx.raw('analyze bank_sync_details');
    },

    /**
     * Claim payments of a batch of camt.054 entries just inserted (the collection account's, booked,
     * not reversed), matched while the parser reads on: the database joins one batch as the next is
     * parsed. Fully matched entries are settled here; anything else is left `unmatched` for the
     * file-level steps, which give the remaining details their exceptions.
     */
    async matchClaimPaymentsOfBatch(batch: StoredEntryBatch): Promise<number> {
      const args = [batch.statementId, batch.fromIndex, batch.toIndex];
      const entries = `e.bank_statement_id = ? and e.entry_index between ? and ?
                   and e.booked and not e.reversal and e.match_status = 'unmatched'`;
      const matched = await count(
        trx,
        `insert into bank_matches (livemode, bank_entry_id, detail_index, kind, object_id, amount)
     select ?, d.entry_id, d.detail_index, 'claim_payment', ct.bank_transaction_key, d.signed_amount
       from (select e.id as entry_id, (o.idx - 1)::int as detail_index,
                    case when (o.x->>'credit')::boolean then 1 else -1 end * (o.x->>'amount')::bigint as signed_amount,
                    o.x->'refs'->>'TxId' as tx_id,
                    coalesce(nullif(o.x->'refs'->>'EndToEndId', 'NOTPROVIDED'), o.x->>'reference') as claim_ref
               from bank_entries e
               cross join lateral jsonb_array_elements(e.details) with ordinality as o(x, idx)
              where ${entries}) d
       join claims c on c.bank_claim_id = d.claim_ref and c.livemode = ?
       join claim_transactions ct on ct.claim_id = c.id and ct.data->>'transactionBatchId' = d.tx_id
                                 and ct.amount = d.signed_amount
     on conflict do nothing`,
        [batch.livemode, ...args, batch.livemode],
      );
      await trx.raw(
        `update bank_entries e set match_status = 'matched', matched_kind = 'claim_payment'
      where ${entries} and jsonb_array_length(e.details) > 0
        and jsonb_array_length(e.details) = (select count(*) from bank_matches m where m.bank_entry_id = e.id)`,
        sqlArgs(...args),
      );
      return matched;
    },

    /**
     * camt.054 details → the claim transactions the IOBWS sync recorded: claim id (EndToEndId, else
     * the structured reference), the bank's transactionBatchId (TxId) and the signed amount.
     */
    async matchClaimPayments(f: FileRef): Promise<{ matched: number; exceptions: number }> {
      await trx.raw(
        `create temp table bank_sync_claims on commit drop as
     select d.entry_id, d.detail_index, d.signed_amount, ct.bank_transaction_key, ct.amount as expected
       from bank_sync_details d
       join claims c on c.bank_claim_id = coalesce(d.end_to_end_id, d.reference) and c.livemode = ?
       join claim_transactions ct on ct.claim_id = c.id and ct.data->>'transactionBatchId' = d.tx_id
      where d.message_type = 'camt.054'`,
        sqlArgs(f.livemode),
      );
      const matched = await count(
        trx,
        `insert into bank_matches (livemode, bank_entry_id, detail_index, kind, object_id, amount)
     select ?, entry_id, detail_index, 'claim_payment', bank_transaction_key, signed_amount
       from bank_sync_claims where signed_amount = expected
     on conflict do nothing`,
        [f.livemode],
      );
      let exceptions = await count(
        trx,
        `insert into bank_exceptions (id, livemode, bank_file_id, bank_entry_id, detail_index, kind, message,
                                  expected_amount, actual_amount)
     select ${NEW_EXCEPTION_ID_SQL}, ?, ?, entry_id, detail_index, 'amount_mismatch',
            'claim payment ' || bank_transaction_key || ' was recorded with another amount', expected, signed_amount
       from (select distinct on (entry_id, detail_index) * from bank_sync_claims c
              where not exists (select 1 from bank_matches m
                                 where m.bank_entry_id = c.entry_id and m.detail_index = c.detail_index)
              order by entry_id, detail_index) x
      where signed_amount <> expected
     on conflict do nothing`,
        [f.livemode, f.fileId],
      );
      // A notification's details are all claim payments: one that matched nothing is an exception.
      exceptions += await count(
        trx,
        `insert into bank_exceptions (id, livemode, bank_file_id, bank_entry_id, detail_index, kind, message, actual_amount)
     select ${NEW_EXCEPTION_ID_SQL}, ?, ?, d.entry_id, d.detail_index, 'unmatched',
            'no recorded claim payment has this claim id and transaction', d.signed_amount
       from bank_sync_details d
      where d.message_type = 'camt.054'
        and not exists (select 1 from bank_matches m where m.bank_entry_id = d.entry_id and m.detail_index = d.detail_index)
        and not exists (select 1 from bank_exceptions x where x.bank_file_id = ? and x.bank_entry_id = d.entry_id
                           and x.detail_index = d.detail_index)
     on conflict do nothing`,
        [f.livemode, f.fileId, f.fileId],
      );
      await trx.raw(
        `update bank_entries e
        set match_status = case when coalesce(m.n, 0) = jsonb_array_length(e.details) then 'matched' else 'exception' end,
            matched_kind = case when coalesce(m.n, 0) = jsonb_array_length(e.details) then 'claim_payment' end
       from (select d.entry_id, (select count(*) from bank_matches m where m.bank_entry_id = d.entry_id) as n
               from (select distinct entry_id from bank_sync_details where message_type = 'camt.054') d) m
      where e.id = m.entry_id`,
      );
      return { matched, exceptions };
    },

    /** A notification file also answers earlier statements' lump sums still waiting for it. */
    async matchLateNotifications(f: FileRef): Promise<{ matched: number; exceptions: number }> {
      return matchLateNotifications(trx, f);
    },
  };
}

export type BankMatchingRepository = ReturnType<typeof createBankMatchingRepository>;
