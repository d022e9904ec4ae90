import type { Knex } from '../../db/knex';
import type { Scope } from '../../domain/scope';
import {
  createCheckoutSessionRepository,
  type CheckoutSessionRow,
  type LineItem,
} from '../../db/checkout-sessions';
import { createRedemptionService, type Pricing } from '../../db/coupon-redemptions';
import { createPromotionCodeRepository } from '../../db/promotion-codes';
import { isTrial } from './subscription-signup';

export const linesOf = (items: LineItem[]) =>
  items.map((l) => ({
    productId: l.product_id,
    quantity: l.quantity,
    unitAmount: l.unit_amount,
    vatRate: l.vat_rate,
  }));

/** Promotion codes on checkout sessions, priced at creation or on the page (counted at completion). */
export function createCheckoutPromotionCodes(deps: { knex: Knex }) {
  const sessions = createCheckoutSessionRepository(deps.knex);
  const redemption = createRedemptionService(deps.knex);
  const codes = createPromotionCodeRepository(deps.knex);

  async function promotionId(
    scope: Scope,
    code: string,
    trx: Knex.Transaction | Knex = deps.knex,
  ): Promise<string | undefined> {
    return (await codes.findActiveByCode(scope, code, trx))?.id;
  }

  /** Prices a session's amount or items with a promotion code (checked, not yet counted). */
  async function priceWithCode(
    scope: Scope,
    s: Pick<CheckoutSessionRow, 'items' | 'amount_subtotal' | 'customer_id'>,
    code: string,
    trx: Knex.Transaction | Knex = deps.knex,
  ): Promise<{ pricing: Pricing; promotionCodeId: string }> {
    const pricing = await redemption.preview(
      scope,
      {
        target: { code },
        customerId: s.customer_id,
        ...(s.items.length > 0 ? { lines: linesOf(s.items) } : { amount: s.amount_subtotal }),
        idempotencyKey: 'preview',
      },
      trx,
    );
    return { pricing, promotionCodeId: (await promotionId(scope, code, trx))! };
  }

  /** Applies (or with '' removes) a promotion code on an open session, from the checkout page. */
  async function applyCode(sessionId: string, code: string): Promise<CheckoutSessionRow | undefined> {
    // Under the session's lock, like paying: a code never changes a session being paid or paid.
    return deps.knex.transaction(async (trx) => {
      const session = await sessions.lockPublic(sessionId, trx);
      if (!session || session.status !== 'open' || session.allow_custom_amount || session.mode === 'setup')
        return session;
      const scope = { merchantId: session.merchant_id, livemode: session.livemode };
      if (code === '')
        return sessions.update(
          session.id,
          { amount: session.amount_subtotal, discount_amount: 0, promotion_code_id: null },
          trx,
        );
      const { pricing, promotionCodeId } = await priceWithCode(scope, session, code, trx);
      if (session.subscription_data && isTrial(session.subscription_data))
        return sessions.update(session.id, { promotion_code_id: promotionCodeId }, trx);
      return sessions.update(
        session.id,
        {
          amount: pricing.amount,
          amount_subtotal: pricing.amountSubtotal,
          discount_amount: pricing.discountAmount,
          promotion_code_id: promotionCodeId,
        },
        trx,
      );
    });
  }

  return { priceWithCode, applyCode };
}

export type CheckoutPromotionCodes = ReturnType<typeof createCheckoutPromotionCodes>;
