import type { Knex } from '../../db/knex';
import type { Scope } from '../../domain/scope';
import { createRedemptionService, type RedemptionTarget } from '../../db/coupon-redemptions';
import { createPriceRepository } from '../../db/prices';
import { createProductRepository } from '../../db/products';
import { bad } from './references';

/** What a create or update asks for: a coupon by id, or a promotion code as a customer types it. */
export interface DiscountRequest {
  coupon?: string | undefined;
  promotionCode?: string | undefined;
}

/**
 * A coupon or promotion code applied to a subscription is redeemed as checkout redeems one
 * (db/coupon-redemptions.ts): the same checks (deleted, `redeem_by`, `max_redemptions`, product
 * restrictions, a promotion code's own limits) and the same exact counting under concurrency, in
 * the transaction that writes the subscription, so a refused redemption writes nothing.
 */
export function createSubscriptionDiscounts(db: Knex) {
  const redemption = createRedemptionService(db);
  const prices = createPriceRepository(db);
  const products = createProductRepository(db);

  return {
    /** The one target of a request, or null; both at once is refused. */
    targetOf(req: DiscountRequest): RedemptionTarget | null {
      if (req.coupon !== undefined && req.promotionCode !== undefined)
        throw bad('Send coupon or promotion_code, not both', 'promotion_code');
      if (req.coupon !== undefined) return { couponId: req.coupon };
      if (req.promotionCode !== undefined) return { code: req.promotionCode };
      return null;
    },

    /**
     * Redeems `target` for a subscription at `at` (its test clock's time, if any), priced on the
     * price it bills next. `key` names the business event once: the new subscription's id, or the
     * subscription at the version being updated. Returns the coupon to store on the subscription.
     */
    async redeem(
      scope: Scope,
      target: RedemptionTarget,
      s: { customerId: string; priceId: string; quantity: number; at: Date; key: string },
      trx: Knex.Transaction,
    ): Promise<string> {
      const price = (await prices.findById(scope, s.priceId, trx))!;
      const product = (await products.findById(scope, price.product_id, trx))!;
      const result = await redemption.redeem(
        scope,
        {
          target,
          customerId: s.customerId,
          lines: [
            {
              productId: product.id,
              quantity: s.quantity,
              unitAmount: Number(price.unit_amount),
              vatRate: product.vat_rate,
            },
          ],
          idempotencyKey: s.key,
          at: s.at,
        },
        trx,
      );
      return result.couponId;
    },
  };
}
