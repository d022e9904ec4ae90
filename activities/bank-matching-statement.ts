import type { Knex } from '../db/knex';
import { recordAudit } from '../db/audit-log';
import { count, entryException, rows, SYSTEM_ACTOR, type FileRef } from './bank-matching-sql';

/**
 * The statement (camt.053) side of matching: lump sums against their notifications, acquirer
 * deposits against captures and refunds, and payouts against their debits (decision 0092).
 */

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

/** camt.053 lump sums (AcctSvcrRef CLM-…) ↔ the camt.054 entry with the same reference and amount. */
export async function matchLumpSums(
  trx: Knex.Transaction,
  f: FileRef,
): Promise<{ matched: number; exceptions: number }> {
  const found = await rows<{
    id: number;
    ref: string;
    amount: number;
    other: number | null;
    other_amount: number | null;
  }>(
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
  let matched = 0;
  let exceptions = 0;
  for (const e of found) {
    // Left for `unmatched`: the notification has not come yet (matchLateNotifications takes it then).
    if (e.other === null) continue;
    if (e.other_amount === e.amount) {
      const n = await count(
        trx,
        `insert into bank_matches (livemode, bank_entry_id, detail_index, kind, object_id, amount)
         values (?, ?, 0, 'claim_lump_sum', ?, ?) on conflict do nothing`,
        [f.livemode, e.id, e.ref, e.amount],
      );
      if (n > 0) {
        await trx('bank_entries')
          .where({ id: e.id })
          .update({ match_status: 'matched', matched_kind: 'claim_lump_sum' });
        matched++;
      }
      continue;
    }
    exceptions += await entryException(
      trx,
      f,
      e.id,
      'amount_mismatch',
      `lump sum ${e.ref} differs from its notification`,
      {
        expected: e.other_amount,
        actual: e.amount,
      },
    );
  }
  return { matched, exceptions };
}

/**
 * Acquirer deposits (AcctSvcrRef ACQ-…): each detail's TxId is a capture's authorization (credit)
 * or a refund's acquirer reference (debit) with the same amount, and the details add up to the entry.
 */
export async function matchDeposits(
  trx: Knex.Transaction,
  f: FileRef,
): Promise<{ matched: number; exceptions: number }> {
  const details = await rows<{
    entry_id: number;
    detail_index: number;
    ref: string;
    entry_signed: number;
    signed_amount: number;
    expected: number | null;
  }>(
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
  const byEntry = new Map<number, typeof details>();
  for (const d of details) byEntry.set(d.entry_id, [...(byEntry.get(d.entry_id) ?? []), d]);
  let matched = 0;
  let exceptions = 0;
  for (const [entryId, list] of byEntry) {
    const first = list[0]!;
    let ok = true;
    for (const d of list) {
      if (d.expected === d.signed_amount) continue;
      ok = false;
      exceptions += await entryException(
        trx,
        f,
        entryId,
        d.expected === null ? 'unmatched' : 'amount_mismatch',
        d.expected === null
          ? `deposit ${d.ref} lists a transaction Skil did not capture or refund`
          : `deposit ${d.ref} lists a transaction with another amount`,
        { expected: d.expected, actual: d.signed_amount, detailIndex: d.detail_index },
      );
    }
    const total = list.reduce((s, d) => s + d.signed_amount, 0);
    if (ok && total !== first.entry_signed) {
      ok = false;
      exceptions += await entryException(
        trx,
        f,
        entryId,
        'amount_mismatch',
        `deposit ${first.ref} does not equal its details`,
        {
          expected: total,
          actual: first.entry_signed,
        },
      );
    }
    if (!ok) continue;
    const n = await count(
      trx,
      `insert into bank_matches (livemode, bank_entry_id, detail_index, kind, object_id, amount)
       values (?, ?, 0, 'acquirer_deposit', ?, ?) on conflict do nothing`,
      [f.livemode, entryId, first.ref, first.entry_signed],
    );
    if (n > 0) {
      await trx('bank_entries')
        .where({ id: entryId })
        .update({ match_status: 'matched', matched_kind: 'acquirer_deposit' });
      matched++;
    }
  }
  return { matched, exceptions };
}

/**
 * Payouts: a booked debit whose EndToEndId (entry or detail) is a payout's. Equal amounts mark the
 * payout and its run paid, with an audit record, in this transaction; another amount is an
 * exception and the run stays as it is.
 */
export async function matchPayouts(
  trx: Knex.Transaction,
  f: FileRef,
): Promise<{ confirmed: ConfirmedPayout[]; exceptions: number }> {
  const found = await rows<{
    entry_id: number;
    amount: number;
    payout_id: string;
    payout_amount: number;
    merchant_id: string;
    run_id: string;
    settlement_date: string;
  }>(
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
  const confirmed: ConfirmedPayout[] = [];
  let exceptions = 0;
  for (const p of found) {
    if (p.amount !== p.payout_amount) {
      exceptions += await entryException(
        trx,
        f,
        p.entry_id,
        'amount_mismatch',
        `payout ${p.payout_id} was debited with another amount`,
        {
          expected: p.payout_amount,
          actual: p.amount,
        },
      );
      continue;
    }
    const n = await count(
      trx,
      `insert into bank_matches (livemode, bank_entry_id, detail_index, kind, object_id, amount)
       values (?, ?, 0, 'payout', ?, ?) on conflict do nothing`,
      [f.livemode, p.entry_id, p.payout_id, p.amount],
    );
    if (n === 0) continue; // the payout was confirmed by another entry: this one stays unmatched
    const now = new Date();
    await trx('bank_entries')
      .where({ id: p.entry_id })
      .update({ match_status: 'matched', matched_kind: 'payout' });
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
    confirmed.push({
      payoutId: p.payout_id,
      merchantId: p.merchant_id,
      livemode: f.livemode,
      settlementRunId: p.run_id,
      settlementDate: p.settlement_date,
      bankEntryId: p.entry_id,
      amount: p.amount,
    });
  }
  return { confirmed, exceptions };
}
