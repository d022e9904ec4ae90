import type { Knex } from '../../db/knex';
import type { SubscriptionRow } from '../../db/subscriptions';
import type { ClaimRow } from '../../db/claims';
import { createMerchantRepository } from '../../db/merchants';
import { createCustomerRepository } from '../../db/customers';
import { createSubscriptionLifecycleRepository } from '../../db/subscription-lifecycle';
import { insertRenewalClaim } from '../../db/claim-collection';
import { claimFallbackOn } from '../../domain/claim-fallback';
import { claimsEnabled } from '../merchant/onboarding';

/** Why a subscription whose card retries ran out got no krafa, and so went to its end state. */
export type FallbackSkipped =
  /** Neither the subscription nor (when it leaves it open) the merchant chose the fallback. */
  | 'off'
  /** The merchant cannot issue kröfur in this environment (no kennitala, or claims not enabled). */
  | 'claims_not_enabled'
  /** The customer has no kennitala: a krafa needs a payer. */
  | 'no_payer_kennitala'
  /** No failed renewal with an amount to collect. */
  | 'nothing_to_collect'
  /** The renewal already had its krafa (it ended unpaid; a renewal gets one krafa). */
  | 'already_claimed';

/**
 * The card → krafa fallback (decision 0105), inside the transaction that ends dunning with the
 * subscription locked: a krafa for the failed renewal, through the claim path every renewal krafa
 * takes (pending, then issued by a claim batch), the renewal `awaiting_claim` until it is paid or
 * ends. When the fallback is off or impossible, the reason, and the caller applies the end state.
 */
export async function issueFallbackClaim(
  trx: Knex.Transaction,
  row: SubscriptionRow,
  at: Date,
): Promise<{ claim: ClaimRow } | { skipped: FallbackSkipped }> {
  const merchant = await createMerchantRepository(trx).findById(row.merchant_id, trx);
  if (!merchant || row.collection_method !== 'charge_automatically') return { skipped: 'off' };
  if (!claimFallbackOn(row.claim_fallback, merchant.dunning)) return { skipped: 'off' };
  if (!claimsEnabled(merchant, row.livemode)) return { skipped: 'claims_not_enabled' };
  const scope = { merchantId: row.merchant_id, livemode: row.livemode };
  const customer = await createCustomerRepository(trx).findById(scope, row.customer_id, trx);
  if (!customer?.kennitala) return { skipped: 'no_payer_kennitala' };
  const lifecycle = createSubscriptionLifecycleRepository(trx);
  const renewal = await lifecycle.latestRenewalRow(row.id, trx);
  if (!renewal || renewal.status !== 'failed' || renewal.amount <= 0)
    return { skipped: 'nothing_to_collect' };
  if (await lifecycle.renewalHasClaim(renewal.id, trx)) return { skipped: 'already_claimed' };
  const claim = await insertRenewalClaim(trx, {
    ...scope,
    subscriptionId: row.id,
    customerId: row.customer_id,
    merchant: {
      kennitala: merchant.kennitala,
      bank_account: merchant.bank_account,
      claim_terms: merchant.claim_terms,
    },
    payerKennitala: customer.kennitala,
    renewal,
    asOf: at,
  });
  await lifecycle.moveRenewal(renewal.id, ['failed'], 'awaiting_claim', trx);
  return { claim };
}
