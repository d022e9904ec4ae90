import type { Knex } from '../../db/knex';
import type { SubscriptionRow } from '../../db/subscriptions';
import type { FinishedRenewal } from '../../db/renewals';
import { claimPartiesOf, insertRenewalClaim } from '../../db/claim-collection';

/**
 * The krafa collecting a claim-collected renewal (decision 0064): the period's amount from the
 * customer's kennitala, dated from the renewal's time (the test clock's, on a clock) by the
 * merchant default; the claim batch issues it and the claim payments sync marks the renewal paid.
 */
export async function renewalClaim(
  trx: Knex.Transaction,
  sub: SubscriptionRow,
  r: FinishedRenewal,
  asOf: Date,
): Promise<void> {
  const { merchant, customer } = await claimPartiesOf(trx, sub.merchant_id, sub.customer_id);
  if (!merchant?.kennitala || !customer?.kennitala)
    throw new Error(`subscription ${sub.id} is collected by claim without a claimant or payer kennitala`);
  await insertRenewalClaim(trx, {
    merchantId: sub.merchant_id,
    livemode: sub.livemode,
    subscriptionId: sub.id,
    customerId: sub.customer_id,
    merchant: { ...merchant, kennitala: merchant.kennitala },
    payerKennitala: customer.kennitala,
    renewal: r,
    asOf,
  });
}
