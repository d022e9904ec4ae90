import type { Db } from './knex';
import { sqlArgs } from './event-batch';

/** What a recorded cost is (decision 0113); the settlement line of a cost has the same kind. */
export type PaymentCostKind = 'acquirer_fee' | 'bank_cost';

/** An acquirer's fee on one capture, as its capture answer reported it. */
export interface AcquirerFee {
  merchantId: string;
  livemode: boolean;
  paymentIntentId: string;
  /** The acquirer's authorization id: one capture, one fee. */
  authorization: string;
  amount: number;
  /** The capture's time, which is also when the acquirer reported the fee. */
  at: Date;
}

/**
 * Records acquirer fees, set-based, in the caller's transaction (the one that marks the payments
 * captured, so a fee exists exactly when its capture does). The idempotency key is the capture's
 * business identity, `acquirer_fee:{authorization}`; a replayed capture records nothing more.
 * Returns how many were new.
 */
export async function recordAcquirerFees(db: Db, fees: readonly AcquirerFee[]): Promise<number> {
  if (fees.length === 0) return 0;
  const result = await db.raw<{ rowCount: number }>(
    `insert into payment_costs (merchant_id, livemode, kind, source_id, idempotency_key, payment_intent_id,
                                amount, occurred_at, recorded_at)
     select t.merchant_id, t.livemode, 'acquirer_fee', t.auth_id, 'acquirer_fee:' || t.auth_id,
            t.payment_intent_id, t.amount, t.at, t.at
       from unnest(?::text[], ?::boolean[], ?::text[], ?::text[], ?::bigint[], ?::timestamptz[])
         as t(merchant_id, livemode, payment_intent_id, auth_id, amount, at)
     on conflict (livemode, idempotency_key) do nothing`,
    sqlArgs(
      fees.map((f) => f.merchantId),
      fees.map((f) => f.livemode),
      fees.map((f) => f.paymentIntentId),
      fees.map((f) => f.authorization),
      fees.map((f) => f.amount),
      fees.map((f) => f.at),
    ),
  );
  return result.rowCount;
}

/**
 * Records the bank's charge for each claim payment a bank file reported and matched (the camt.054
 * detail's `Chrgs`, decision 0113), set-based, in the transaction that matched the file. The
 * idempotency key is the claim transaction, `bank_cost:{claim transaction key}`: the same payment in
 * a second file, or a file processed again, records nothing more. The cost belongs to the claim's
 * merchant; the booking day is when it arose. Returns how many were new.
 */
export async function recordBankCostsOfFile(
  db: Db,
  file: { fileId: string; livemode: boolean },
): Promise<number> {
  // Driven by the file's details that carry a charge, each looked up in bank_matches by its unique
  // (entry, detail) alone. The file's rows are not committed yet, so the planner's statistics know
  // none of them; left to choose, it intersected each entry's matches with every claim-payment match
  // ever recorded (35 s for a file of 100,000 payments, growing with the table; decision 0190).
  const result = await db.raw<{ rowCount: number }>(
    `insert into payment_costs (merchant_id, livemode, kind, source_id, idempotency_key, claim_id, amount,
                                bank_file_id, occurred_at)
     select c.merchant_id, c.livemode, 'bank_cost', ct.bank_transaction_key, 'bank_cost:' || ct.bank_transaction_key,
            c.id, x.charges, e.bank_file_id,
            case when e.booking_date ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}'
                 then cast(left(e.booking_date, 10) || 'T00:00:00Z' as timestamptz) else now() end
       from bank_entries e
       cross join lateral (
         select (o.idx - 1)::int as detail_index, cast(o.x ->> 'charges' as bigint) as charges
           from jsonb_array_elements(e.details) with ordinality as o(x, idx)) x
       -- offset 0 keeps the outer conditions out: the match is read by its unique (entry, detail) alone.
       cross join lateral (
         select m.object_id, m.livemode, m.kind from bank_matches m
          where m.bank_entry_id = e.id and m.detail_index = x.detail_index offset 0) m
       join claim_transactions ct on ct.bank_transaction_key = m.object_id
       join claims c on c.id = ct.claim_id and c.livemode = m.livemode
      where e.bank_file_id = ? and e.livemode = ? and x.charges > 0
        and m.livemode = ? and m.kind = 'claim_payment'
     on conflict (livemode, idempotency_key) do nothing`,
    sqlArgs(file.fileId, file.livemode, file.livemode),
  );
  return result.rowCount;
}
