import type { Db } from './knex';
import type { Scope } from '../domain/scope';

/**
 * Refunds of kröfur (decision 0101): where the money goes back to, and which refunds a payout file
 * carries. A krafa is paid from the payer's bank account, which the bank's payment notification
 * (camt.054 `DbtrAcct`) names; bank sync keeps it on the matched detail (`partyAccount`).
 */

/** The claim behind a payment intent and where its refund goes. */
export interface ClaimRefundDestination {
  claimId: string;
  /** The claim's payer. */
  kennitala: string;
  /** The payer's name when the claim has a customer with one. */
  name: string | null;
  /** 12 digits; null until a notification of the claim's payment has been matched. */
  account: string | null;
}

/*
 * The account of the claim's latest payment that a matched notification detail names. Bindings:
 * none; `c` is the claim.
 */
const PAYER_ACCOUNT_SQL = `(
  select e.details -> m.detail_index ->> 'partyAccount'
    from claim_transactions ct
    join bank_matches m on m.livemode = c.livemode and m.kind = 'claim_payment'
                       and m.object_id = ct.bank_transaction_key
    join bank_entries e on e.id = m.bank_entry_id
   where ct.claim_id = c.id and ct.amount > 0 and e.details -> m.detail_index ->> 'partyAccount' is not null
   order by ct.created_at desc, ct.id desc
   limit 1)`;

/** The claim that collected this payment intent, with its payer and the payer's account if known. */
export async function findClaimRefundDestination(
  db: Db,
  scope: Scope,
  paymentIntentId: string,
): Promise<ClaimRefundDestination | undefined> {
  const result = await db.raw<{ rows: ClaimRefundDestination[] }>(
    `select c.id as "claimId", c.payer_kennitala as kennitala, nullif(cu.name, '') as name,
            ${PAYER_ACCOUNT_SQL} as account
       from claims c left join customers cu on cu.id = c.customer_id
      where c.payment_intent_id = ? and c.merchant_id = ? and c.livemode = ?
      limit 1`,
    [paymentIntentId, scope.merchantId, scope.livemode],
  );
  return result.rows[0];
}

/**
 * Fills in the payer's account of the merchant's pending krafa refunds that were made before the
 * bank's notification of the payment arrived (settlement gathers only refunds that know where to go).
 */
export async function resolvePendingRefundDestinations(db: Db, scope: Scope): Promise<number> {
  const result = await db.raw<{ rowCount: number | null }>(
    `update refunds r set destination_account = d.account
       from (select r2.id, ${PAYER_ACCOUNT_SQL} as account
               from refunds r2
               join claims c on c.payment_intent_id = r2.payment_intent_id and c.livemode = r2.livemode
              where r2.merchant_id = ? and r2.livemode = ? and r2.status = 'pending'
                and r2.destination_account is null) d
      where r.id = d.id and d.account is not null`,
    [scope.merchantId, scope.livemode],
  );
  return result.rowCount ?? 0;
}

/** One refund of a krafa, as a credit transfer of a payout file. */
export interface RefundTransfer {
  refundId: string;
  amount: number;
  account: string;
  kennitala: string;
  name: string | null;
}

/** The krafa refunds a settlement run nets, still pending, in line order: its payout file pays them. */
export async function refundTransfersOfRun(db: Db, scope: Scope, runId: string): Promise<RefundTransfer[]> {
  const result = await db.raw<{ rows: RefundTransfer[] }>(
    `select r.id as "refundId", cast(r.amount as integer) as amount, r.destination_account as account,
            r.destination_kennitala as kennitala, r.destination_name as name
       from settlement_lines l
       join refunds r on r.id = l.source_id and r.livemode = l.livemode
      where l.settlement_run_id = ? and l.merchant_id = ? and l.livemode = ? and l.kind = 'refund'
        and r.destination_account is not null
      order by l.id`,
    [runId, scope.merchantId, scope.livemode],
  );
  return result.rows;
}
