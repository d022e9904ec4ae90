import type { Knex } from '../db/knex';
import { sqlArgs } from '../db/event-batch';
import { NEW_EXCEPTION_ID_SQL } from '../db/bank-exceptions';
import { recordAudit } from '../db/audit-log';

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

export interface MatchResult {
  claimPayments: number;
  lumpSums: number;
  deposits: number;
  payouts: ConfirmedPayout[];
  exceptions: number;
}

interface FileRef {
  fileId: string;
  livemode: boolean;
  /** The connection's collection account, 12 digits (4-2-6 without dashes). */
  collectionAccount: string;
}

const rows = async <T>(trx: Knex.Transaction, sql: string, args: unknown[]): Promise<T[]> =>
  (await trx.raw<{ rows: T[] }>(sql, sqlArgs(...args))).rows;

const count = async (trx: Knex.Transaction, sql: string, args: unknown[]): Promise<number> =>
  (await trx.raw<{ rowCount: number }>(sql, sqlArgs(...args))).rowCount;

/**
 * Matches one file's booked entries, set-based, inside the transaction that stored them (decision
 * 0090, 0092). Order matters: entries of a foreign account and reversals are set aside first, then
 * claim payments, lump sums, acquirer deposits and payouts are matched, and whatever booked entry
 * is left becomes an `unmatched` exception. `bank_matches` is unique per object, so a payment seen
 * in a second file can never count twice.
 */
export async function matchBankFile(
  trx: Knex.Transaction,
  f: FileRef,
  timings: Record<string, number> = {},
): Promise<MatchResult> {
  let exceptions = 0;
  let mark = Date.now();
  const lap = (step: string) => {
    timings[step] = Date.now() - mark;
    mark = Date.now();
  };
  // Entries set aside get an exception in the same statement that changes their status.
  const setAside = async (kind: string, where: string, message: string, args: unknown[]): Promise<void> => {
    exceptions += await count(
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
  };

  await setAside(
    'unknown_account',
    `not (regexp_replace(s.account, '[^0-9]', '', 'g') = ? or (s.account ~ '^IS[0-9]{24}$' and substr(s.account, 5, 12) = ?))`,
    `'statement account ' || hit.account || ' is not this connection''s collection account'`,
    [f.collectionAccount, f.collectionAccount],
  );
  await setAside('reversal', 'e.reversal', `'the bank reversed an entry (RvslInd)'`, []);

  // Every transaction detail of the file's entries still open, once, for the joins below.
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

  lap('details');
  const claimPayments = await matchClaimPayments(trx, f);
  exceptions += claimPayments.exceptions;
  lap('claimPayments');
  const lumpSums = await matchLumpSums(trx, f);
  exceptions += lumpSums.exceptions;
  const deposits = await matchDeposits(trx, f);
  exceptions += deposits.exceptions;
  lap('deposits');
  const payouts = await matchPayouts(trx, f);
  exceptions += payouts.exceptions;

  await setAside('unmatched', 'e.booked', `'no claim payment, deposit or payout matches this entry'`, []);
  lap('rest');
  return {
    claimPayments: claimPayments.matched,
    lumpSums: lumpSums.matched,
    deposits: deposits.matched,
    payouts: payouts.confirmed,
    exceptions,
  };
}

/**
 * camt.054 details → the claim transactions the IOBWS sync recorded: claim id (EndToEndId, else the
 * structured reference), the bank's transactionBatchId (TxId) and the signed amount.
 */
async function matchClaimPayments(
  trx: Knex.Transaction,
  f: FileRef,
): Promise<{ matched: number; exceptions: number }> {
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
}

/** camt.053 lump sums (AcctSvcrRef CLM-…) ↔ the camt.054 entry with the same reference and amount. */
async function matchLumpSums(
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
          where n.livemode = e.livemode and n.acct_svcr_ref = e.acct_svcr_ref and n.booked and n.credit = e.credit
          order by (n.amount = e.amount) desc, n.id limit 1) n on true
      where e.bank_file_id = ? and e.livemode = ? and e.match_status = 'unmatched' and e.acct_svcr_ref like 'CLM-%'`,
    [f.fileId, f.livemode],
  );
  let matched = 0;
  let exceptions = 0;
  for (const e of found) {
    if (e.other === null) continue; // left for `unmatched`: the notification has not come (yet)
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
async function matchDeposits(
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

const SYSTEM_ACTOR = { kind: 'system', id: null, name: 'bank sync' } as const;

/**
 * Payouts: a booked debit whose EndToEndId (entry or detail) is a payout's. Equal amounts mark the
 * payout and its run paid, with an audit record, in this transaction; another amount is an
 * exception and the run stays as it is.
 */
async function matchPayouts(
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

/** Sets one entry aside with an exception (entry level, or one detail of it). */
async function entryException(
  trx: Knex.Transaction,
  f: FileRef,
  entryId: number,
  kind: 'unmatched' | 'amount_mismatch',
  message: string,
  amounts: { expected: number | null; actual: number; detailIndex?: number },
): Promise<number> {
  await trx('bank_entries').where({ id: entryId }).update({ match_status: 'exception' });
  return count(
    trx,
    `insert into bank_exceptions (id, livemode, bank_file_id, bank_entry_id, detail_index, kind, message,
                                  expected_amount, actual_amount)
     values (${NEW_EXCEPTION_ID_SQL}, ?, ?, ?, ?, ?, ?, ?, ?) on conflict do nothing`,
    [
      f.livemode,
      f.fileId,
      entryId,
      amounts.detailIndex ?? 0,
      kind,
      message,
      amounts.expected,
      amounts.actual,
    ],
  );
}
