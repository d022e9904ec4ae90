import type { Db, Knex } from './knex';
import { recordAudit } from './audit-log';
import { count, entryException, rows, SYSTEM_ACTOR, type FileRef } from './bank-matching-sql';
import type { RefundRow } from './payment-intents';

/** A payout the bank has debited: the settlement workflow is told once the transaction commits. */
export interface ConfirmedPayout {
  payoutId: string;
  merchantId: string;
  livemode: boolean;
  settlementRunId: string;
  settlementDate: string;
  bankEntryId: number;
  amount: number;
}

/** A camt.053 lump sum (AcctSvcrRef CLM-…) and the camt.054 entry with its reference, if any yet. */
export interface LumpSumCandidate {
  id: number;
  ref: string;
  amount: number;
  other: number | null;
  other_amount: number | null;
}

/** One detail of an acquirer deposit and what Skil captured or refunded under its TxId. */
export interface DepositDetail {
  entry_id: number;
  detail_index: number;
  ref: string;
  entry_signed: number;
  signed_amount: number;
  expected: number | null;
}

/** A booked debit and the payout whose EndToEndId it carries. */
export interface PayoutCandidate {
  entry_id: number;
  amount: number;
  payout_id: string;
  payout_amount: number;
  merchant_id: string;
  run_id: string;
  settlement_date: string;
}

/** A booked debit and the pending krafa refund whose EndToEndId it carries (decision 0101). */
export interface RefundTransferCandidate {
  entry_id: number;
  amount: number;
  refund_id: string;
  refund_amount: number;
  merchant_id: string;
}

export type EntryMatchKind = 'claim_lump_sum' | 'acquirer_deposit' | 'payout' | 'refund';

/**
 * The statement (camt.053) side of matching: lump sums, acquirer deposits and payouts (decision
 * 0092). Made for the transaction that stored the file, whose temporary `bank_sync_details` the
 * deposit and payout reads join.
 */
export function createStatementMatchingRepository(trx: Knex.Transaction) {
  return {
    /** camt.053 lump sums still open, each with its notification entry (an equal amount first). */
    async lumpSumCandidates(f: FileRef): Promise<LumpSumCandidate[]> {
      return rows<LumpSumCandidate>(
        trx,
        `select e.id, e.acct_svcr_ref as ref, e.amount, n.id as other, n.amount as other_amount
       from bank_entries e
       join bank_statements s on s.id = e.bank_statement_id and s.message_type = 'camt.053'
       left join lateral (
         select n.id, n.amount from bank_entries n
           join bank_statements ns on ns.id = n.bank_statement_id and ns.message_type = 'camt.054'
          where n.livemode = e.livemode and n.acct_svcr_ref = e.acct_svcr_ref and n.booked and not n.reversal
            and n.credit = e.credit
          order by (n.amount = e.amount) desc, n.id limit 1) n on true
      where e.bank_file_id = ? and e.livemode = ? and e.match_status = 'unmatched' and e.acct_svcr_ref like 'CLM-%'`,
        [f.fileId, f.livemode],
      );
    },

    /**
     * Details of acquirer deposits (AcctSvcrRef ACQ-…), in entry order, each with the amount of the
     * capture (credit: its authorization) or refund (debit: its acquirer reference) named by its TxId.
     */
    async depositDetails(f: FileRef): Promise<DepositDetail[]> {
      return rows<DepositDetail>(
        trx,
        `select d.entry_id, d.detail_index, d.acct_svcr_ref as ref,
            case when d.entry_credit then d.entry_amount else -d.entry_amount end as entry_signed,
            d.signed_amount,
            case when d.signed_amount >= 0
                 then (select p.amount_captured from payment_intents p
                        where p.livemode = ? and p.acquirer_authorization = d.tx_id and p.status = 'succeeded' limit 1)
                 else (select -r.amount from refunds r
                        where r.livemode = ? and r.acquirer_reference = d.tx_id and r.status = 'succeeded' limit 1)
            end as expected
       from bank_sync_details d
      where d.message_type = 'camt.053' and d.acct_svcr_ref like 'ACQ-%'
      order by d.entry_id, d.detail_index`,
        [f.livemode, f.livemode],
      );
    },

    /** Booked debits still open whose EndToEndId (entry or detail) is a pending or submitted payout's. */
    async payoutCandidates(f: FileRef): Promise<PayoutCandidate[]> {
      return rows<PayoutCandidate>(
        trx,
        `select distinct on (e.id) e.id as entry_id, e.amount, p.id as payout_id, p.amount as payout_amount,
            p.merchant_id, p.settlement_run_id as run_id, r.settlement_date
       from bank_entries e
       join payouts p on p.livemode = e.livemode and p.status in ('pending', 'submitted')
                     and (p.end_to_end_id = e.end_to_end_id
                          or p.end_to_end_id in (select d.end_to_end_id from bank_sync_details d where d.entry_id = e.id))
       join settlement_runs r on r.id = p.settlement_run_id and r.merchant_id = p.merchant_id and r.livemode = p.livemode
      where e.bank_file_id = ? and e.livemode = ? and e.match_status = 'unmatched' and e.booked and not e.credit
      order by e.id, p.id`,
        [f.fileId, f.livemode],
      );
    },

    /**
     * Booked debits still open whose EndToEndId (entry or detail) is a pending krafa refund's id:
     * the credit transfers back to payers that payout files carried (decision 0101).
     */
    async refundTransferCandidates(f: FileRef): Promise<RefundTransferCandidate[]> {
      return rows<RefundTransferCandidate>(
        trx,
        `select distinct on (e.id) e.id as entry_id, e.amount, r.id as refund_id, r.amount as refund_amount,
            r.merchant_id
       from bank_entries e
       join refunds r on r.livemode = e.livemode and r.status = 'pending' and r.destination_account is not null
                     and (r.id = e.end_to_end_id
                          or r.id in (select d.end_to_end_id from bank_sync_details d where d.entry_id = e.id))
      where e.bank_file_id = ? and e.livemode = ? and e.match_status = 'unmatched' and e.booked and not e.credit
      order by e.id, r.id`,
        [f.fileId, f.livemode],
      );
    },

    /** A krafa refund whose transfer the bank booked: `succeeded`, once. The row, or undefined if it was not pending. */
    async markRefundSucceeded(f: FileRef, c: RefundTransferCandidate): Promise<RefundRow | undefined> {
      const [row] = await trx<RefundRow>('refunds')
        .where({ id: c.refund_id, merchant_id: c.merchant_id, livemode: f.livemode, status: 'pending' })
        .update({ status: 'succeeded', succeeded_at: new Date() })
        .returning('*');
      return row;
    },

    /**
     * Matches a whole entry to one object and marks the entry matched. False when the object was
     * matched already (`bank_matches` is unique per object): the entry is then left as it is.
     */
    async matchEntry(
      f: FileRef,
      m: { entryId: number; kind: EntryMatchKind; objectId: string; amount: number },
    ): Promise<boolean> {
      const n = await count(
        trx,
        `insert into bank_matches (livemode, bank_entry_id, detail_index, kind, object_id, amount)
         values (?, ?, 0, ?, ?, ?) on conflict do nothing`,
        [f.livemode, m.entryId, m.kind, m.objectId, m.amount],
      );
      if (n === 0) return false;
      await trx('bank_entries')
        .where({ id: m.entryId })
        .update({ match_status: 'matched', matched_kind: m.kind });
      return true;
    },

    /** Sets one entry aside with an exception (entry level, or one detail of it); 1 if recorded. */
    async entryException(
      f: FileRef,
      entryId: number,
      kind: 'unmatched' | 'amount_mismatch',
      message: string,
      amounts: { expected: number | null; actual: number; detailIndex?: number },
    ): Promise<number> {
      return entryException(trx, f, entryId, kind, message, amounts);
    },

    /** Marks a debited payout and its submitted run paid, with an audit record. */
    async markPayoutPaid(f: FileRef, p: PayoutCandidate): Promise<void> {
      const now = new Date();
      await trx('payouts')
        .where({ id: p.payout_id, merchant_id: p.merchant_id, livemode: f.livemode })
        .update({ status: 'paid', bank_entry_id: p.entry_id, paid_at: now, updated_at: now });
      await trx('settlement_runs')
        .where({ id: p.run_id, merchant_id: p.merchant_id, livemode: f.livemode, status: 'submitted' })
        .update({ status: 'paid', paid_at: now, updated_at: now });
      await recordAudit(trx, {
        actor: SYSTEM_ACTOR,
        action: 'payout.paid',
        objectType: 'payout',
        objectId: p.payout_id,
        livemode: f.livemode,
        merchantId: p.merchant_id,
        data: {
          bank_entry_id: p.entry_id,
          bank_file_id: f.fileId,
          settlement_run_id: p.run_id,
          amount: p.amount,
        },
      });
    },
  };
}

export type StatementMatchingRepository = ReturnType<typeof createStatementMatchingRepository>;

/** The payouts a processed file confirmed, to tell settlement again when the file is seen again. */
export async function payoutsConfirmedBy(
  db: Db,
  livemode: boolean,
  fileId: string,
): Promise<ConfirmedPayout[]> {
  const rows = await db.raw<{ rows: ConfirmedPayout[] }>(
    `select p.id as "payoutId", p.merchant_id as "merchantId", p.livemode, p.settlement_run_id as "settlementRunId",
            r.settlement_date as "settlementDate", p.bank_entry_id as "bankEntryId", p.amount
       from payouts p
       join bank_entries e on e.id = p.bank_entry_id
       join settlement_runs r on r.id = p.settlement_run_id and r.merchant_id = p.merchant_id and r.livemode = p.livemode
      where e.bank_file_id = ? and p.livemode = ? and p.status = 'paid'`,
    [fileId, livemode],
  );
  return rows.rows;
}
