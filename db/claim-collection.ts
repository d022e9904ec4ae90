import type { Db, Knex } from './knex';
import { claimSessionUnpaid, insertClaim, type ClaimRow } from './claims';
import { sqlArgs } from './event-batch';
import { claimDatesFor, claimTermsRuleOf } from '../domain/checkout-claims';

/**
 * Claims that collect subscription renewals (decision 0064): who the claimant and the payer of a
 * renewal's claim are, and the expiry of claims whose cancellation date has passed.
 */

/** The kennitala, bank account and claim terms of the merchant, and the customer's kennitala. */
export async function claimPartiesOf(
  trx: Db,
  merchantId: string,
  customerId: string | null,
): Promise<{
  merchant: { kennitala: string | null; bank_account: string | null; claim_terms: unknown } | undefined;
  customer: { kennitala: string | null } | undefined;
}> {
  const merchant = await trx('merchants')
    .where({ id: merchantId })
    .first<{ kennitala: string | null; bank_account: string | null; claim_terms: unknown }>(
      'kennitala',
      'bank_account',
      'claim_terms',
    );
  const customer = await trx('customers')
    .where({ id: customerId })
    .first<{ kennitala: string | null }>('kennitala');
  return { merchant, customer };
}

/**
 * The krafa collecting a subscription renewal: the renewal's amount from the customer's kennitala,
 * dated from `asOf` (the test clock's time, on a clock) by the merchant's claim terms, for a
 * claim-collected renewal (decision 0064) or one whose card retries ran out (decision 0105). The
 * claim batch issues it; one krafa per renewal (unique `renewal_id`).
 */
export async function insertRenewalClaim(
  trx: Knex.Transaction,
  input: {
    merchantId: string;
    livemode: boolean;
    subscriptionId: string;
    customerId: string;
    merchant: { kennitala: string; bank_account: string | null; claim_terms: unknown };
    payerKennitala: string;
    renewal: { id: string; period_index: number; amount: number };
    asOf: Date;
  },
): Promise<ClaimRow> {
  return insertClaim(trx, {
    merchantId: input.merchantId,
    livemode: input.livemode,
    claimantKennitala: input.merchant.kennitala,
    bankAccount: input.merchant.bank_account,
    customerId: input.customerId,
    payerKennitala: input.payerKennitala,
    amount: input.renewal.amount,
    ...claimDatesFor(input.asOf.toISOString().slice(0, 10), claimTermsRuleOf(input.merchant.claim_terms)),
    description: `Subscription ${input.subscriptionId}, period ${input.renewal.period_index + 1}`,
    metadata: { subscription: input.subscriptionId, renewal: input.renewal.id },
    renewalId: input.renewal.id,
  });
}

/** A subscription whose lifecycle workflow must look at it, with the test clock it is bound to. */
export interface ClaimLifecycleRef {
  merchantId: string;
  livemode: boolean;
  subscriptionId: string;
  testClockId: string | null;
}

/**
 * The subscriptions whose lifecycle these kröfur's outcomes move on (decision 0105): the past_due
 * ones waiting for one of them since their card retries ran out (paid, expired, cancelled or
 * refused at issuance), and the active claim-collected ones for which one of them ended unpaid.
 * Kröfur by id, or by the bank's claim id.
 */
export async function lifecycleRefsOfClaims(
  db: Db,
  claimIds: readonly string[],
  by: 'id' | 'bank_claim_id' = 'id',
): Promise<ClaimLifecycleRef[]> {
  if (claimIds.length === 0) return [];
  const key = by === 'id' ? 'c.id' : 'c.bank_claim_id';
  const { rows } = await db.raw<{
    rows: { merchant_id: string; livemode: boolean; id: string; test_clock_id: string | null }[];
  }>(
    `select distinct s.merchant_id, s.livemode, s.id, s.test_clock_id
       from claims c join renewals r on r.id = c.renewal_id join subscriptions s on s.id = r.subscription_id
      where ${key} = any(?::text[])
        and ((s.dunning_claim_id = c.id and s.status = 'past_due')
          or (c.status in ('expired', 'cancelled') and s.collection_method = 'claim' and s.status = 'active'))`,
    sqlArgs(...[claimIds]),
  );
  return rows.map((r) => ({
    merchantId: r.merchant_id,
    livemode: r.livemode,
    subscriptionId: r.id,
    testClockId: r.test_clock_id,
  }));
}

/** A krafa that expired unpaid: what it asked and what of it was paid. */
export interface ExpiredClaim {
  id: string;
  amount: number;
  amount_paid: number;
}

/**
 * Expires the unpaid claims whose cancellation date (niðurfellingardagur) has passed by `asOf`: those
 * of the clock's subscriptions for a test clock, every other claim otherwise (decision 0064). Their
 * renewals are void and their checkout sessions unpaid, and `onExpired` is given them in the same
 * transaction (their invoices are credited: decision 0211). Returns the ids of the claims that expired.
 */
export async function expireClaims(
  knex: Knex,
  asOf: Date,
  testClockId: string | null,
  onExpired: (trx: Knex.Transaction, claims: ExpiredClaim[]) => Promise<unknown> = () => Promise.resolve(),
): Promise<string[]> {
  const clockOf = `(select s.test_clock_id from renewals r join subscriptions s on s.id = r.subscription_id
                     where r.id = c.renewal_id)`;
  return knex.transaction(async (trx) => {
    const { rows } = await trx.raw<{
      rows: (ExpiredClaim & { renewal_id: string | null; checkout_session_id: string | null })[];
    }>(
      `update claims c set status = 'expired', updated_at = now()
        where c.status in ('pending', 'issued', 'partially_paid') and c.cancellation_date < ?
          and ${testClockId === null ? `${clockOf} is null` : `${clockOf} = ?`}
       returning c.id, c.renewal_id, c.checkout_session_id, c.amount::int as amount, c.amount_paid::int as amount_paid`,
      sqlArgs(asOf.toISOString().slice(0, 10), ...(testClockId === null ? [] : [testClockId])),
    );
    const renewalIds = rows.map((r) => r.renewal_id).filter((id): id is string => id !== null);
    if (renewalIds.length > 0)
      await trx('renewals')
        .whereIn('id', renewalIds)
        .where({ status: 'awaiting_claim' })
        .update({ status: 'void', updated_at: new Date() });
    for (const r of rows) if (r.checkout_session_id) await claimSessionUnpaid(trx, r.checkout_session_id);
    if (rows.length > 0) await onExpired(trx, rows);
    return rows.map((r) => r.id);
  });
}
