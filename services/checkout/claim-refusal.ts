import type { Knex } from '../../db/knex';
import type { Scope } from '../../domain/scope';
import { createCheckoutSessionRepository } from '../../db/checkout-sessions';
import { createRedemptionService } from '../../db/coupon-redemptions';
import { createPaymentLinkRepository } from '../../db/payment-links';
import { createVariantRepository } from '../../db/product-variants';

/**
 * A checkout session whose krafa the bank refused at issuance (decision 0103) becomes `unpaid`
 * (its status stays `complete`, spec §3), and what its completion took is given back: the units
 * of stock, the promotion code's redemption and the payment link's completion, so the buyer can
 * pay through a new session. False, and nothing changed, when the session was not awaiting a claim.
 */
export async function releaseRefusedClaimSession(
  trx: Knex.Transaction,
  scope: Scope,
  sessionId: string,
): Promise<boolean> {
  const session = await createCheckoutSessionRepository(trx).movePaymentStatus(
    scope,
    sessionId,
    'awaiting_claim',
    'unpaid',
    trx,
  );
  if (!session) return false;
  const variants = createVariantRepository(trx);
  for (const item of session.items)
    if (item.variant_id) await variants.returnStock(scope, item.variant_id, item.quantity, trx);
  // The completion redeemed the code under the session's id (completion.ts, claimCompletion).
  if (session.promotion_code_id) await createRedemptionService(trx).release(scope, session.id, trx);
  if (session.payment_link_id)
    await createPaymentLinkRepository(trx).uncountCompletion(session.payment_link_id, trx);
  return true;
}
