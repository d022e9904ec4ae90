import type { Db, Knex } from './knex';
import { claimSessionUnpaid } from './claims';
import { sqlArgs } from './event-batch';

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
 * Expires the unpaid claims whose cancellation date (niðurfellingardagur) has passed by `asOf`: those
 * of the clock's subscriptions for a test clock, every other claim otherwise (decision 0064). Their
 * renewals are void and their checkout sessions unpaid. Returns how many expired.
 */
export async function expireClaims(knex: Knex, asOf: Date, testClockId: string | null): Promise<number> {
  const clockOf = `(select s.test_clock_id from renewals r join subscriptions s on s.id = r.subscription_id
                     where r.id = c.renewal_id)`;
  return knex.transaction(async (trx) => {
    const { rows } = await trx.raw<{
      rows: { renewal_id: string | null; checkout_session_id: string | null }[];
    }>(
      `update claims c set status = 'expired', updated_at = now()
        where c.status in ('pending', 'issued', 'partially_paid') and c.cancellation_date < ?
          and ${testClockId === null ? `${clockOf} is null` : `${clockOf} = ?`}
       returning c.renewal_id, c.checkout_session_id`,
      sqlArgs(asOf.toISOString().slice(0, 10), ...(testClockId === null ? [] : [testClockId])),
    );
    const renewalIds = rows.map((r) => r.renewal_id).filter((id): id is string => id !== null);
    if (renewalIds.length > 0)
      await trx('renewals')
        .whereIn('id', renewalIds)
        .where({ status: 'awaiting_claim' })
        .update({ status: 'void', updated_at: new Date() });
    for (const r of rows) if (r.checkout_session_id) await claimSessionUnpaid(trx, r.checkout_session_id);
    return rows.length;
  });
}
