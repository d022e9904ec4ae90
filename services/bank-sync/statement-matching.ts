import type { Knex } from '../../db/knex';
import type { FileRef } from '../../db/bank-matching';
import {
  createStatementMatchingRepository,
  type ConfirmedPayout,
  type DepositDetail,
} from '../../db/bank-statement-matching';
import { recordRefundUpdated } from '../payments/refund-events';

export type { ConfirmedPayout } from '../../db/bank-statement-matching';

/**
 * The statement (camt.053) side of matching: lump sums against their notifications, acquirer
 * deposits against captures and refunds, and payouts against their debits (decision 0092).
 */

/** camt.053 lump sums (AcctSvcrRef CLM-…) ↔ the camt.054 entry with the same reference and amount. */
export async function matchLumpSums(
  trx: Knex.Transaction,
  f: FileRef,
): Promise<{ matched: number; exceptions: number }> {
  const repo = createStatementMatchingRepository(trx);
  let matched = 0;
  let exceptions = 0;
  for (const e of await repo.lumpSumCandidates(f)) {
    // Left for `unmatched`: the notification has not come yet (matchLateNotifications takes it then).
    if (e.other === null) continue;
    if (e.other_amount === e.amount) {
      const m = { entryId: e.id, kind: 'claim_lump_sum' as const, objectId: e.ref, amount: e.amount };
      if (await repo.matchEntry(f, m)) matched++;
      continue;
    }
    exceptions += await repo.entryException(
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
  const repo = createStatementMatchingRepository(trx);
  const details = await repo.depositDetails(f);
  const byEntry = new Map<number, DepositDetail[]>();
  for (const d of details) byEntry.set(d.entry_id, [...(byEntry.get(d.entry_id) ?? []), d]);
  let matched = 0;
  let exceptions = 0;
  for (const [entryId, list] of byEntry) {
    const first = list[0]!;
    let ok = true;
    for (const d of list) {
      if (d.expected === d.signed_amount) continue;
      ok = false;
      exceptions += await repo.entryException(
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
      exceptions += await repo.entryException(
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
    const m = { entryId, kind: 'acquirer_deposit' as const, objectId: first.ref, amount: first.entry_signed };
    if (await repo.matchEntry(f, m)) matched++;
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
  const repo = createStatementMatchingRepository(trx);
  const confirmed: ConfirmedPayout[] = [];
  let exceptions = 0;
  for (const p of await repo.payoutCandidates(f)) {
    if (p.amount !== p.payout_amount) {
      exceptions += await repo.entryException(
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
    const m = { entryId: p.entry_id, kind: 'payout' as const, objectId: p.payout_id, amount: p.amount };
    // The payout was confirmed by another entry: this one stays unmatched.
    if (!(await repo.matchEntry(f, m))) continue;
    await repo.markPayoutPaid(f, p);
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

/**
 * Krafa refunds (decision 0101): a booked debit whose EndToEndId is a pending refund's id is the
 * credit transfer back to the payer that a payout file carried. An equal amount marks the refund
 * `succeeded` and records `refund.updated` in this transaction (the channels to wake go to `wake`);
 * another amount is an exception and the refund stays pending.
 */
export async function matchRefundTransfers(
  trx: Knex.Transaction,
  f: FileRef,
  wake: string[],
): Promise<{ matched: number; exceptions: number }> {
  const repo = createStatementMatchingRepository(trx);
  let matched = 0;
  let exceptions = 0;
  for (const c of await repo.refundTransferCandidates(f)) {
    if (c.amount !== c.refund_amount) {
      exceptions += await repo.entryException(
        f,
        c.entry_id,
        'amount_mismatch',
        `refund ${c.refund_id} was debited with another amount`,
        { expected: c.refund_amount, actual: c.amount },
      );
      continue;
    }
    const m = { entryId: c.entry_id, kind: 'refund' as const, objectId: c.refund_id, amount: c.amount };
    if (!(await repo.matchEntry(f, m))) continue;
    const refund = await repo.markRefundSucceeded(f, c);
    if (refund) wake.push(...(await recordRefundUpdated(trx, refund)));
    matched++;
  }
  return { matched, exceptions };
}
