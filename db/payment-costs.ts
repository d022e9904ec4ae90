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
