/**
 * Whether a coupon, or a promotion code applying it, may be redeemed now: pure rules shared by
 * the redemption service (which re-checks the counters atomically in SQL) and by previews.
 */

export interface CouponState {
  deleted: boolean;
  redeemBy: Date | null;
  maxRedemptions: number | null;
  timesRedeemed: number;
}

export interface PromotionState {
  active: boolean;
  expiresAt: Date | null;
  maxRedemptions: number | null;
  timesRedeemed: number;
  /** Only this customer may use the code. */
  customerId: string | null;
  firstTimeTransaction: boolean;
  /** Smallest order subtotal (before discount) the code applies to. */
  minimumAmount: number | null;
}

export interface RedemptionContext {
  at: Date;
  customerId: string | null;
  /** Whether the customer has never bought before; only asked when a code requires it. */
  firstTimeCustomer: boolean;
  amountSubtotal: number;
}

export interface Rejection {
  code:
    | 'coupon_deleted'
    | 'coupon_expired'
    | 'coupon_max_redemptions'
    | 'promotion_code_inactive'
    | 'promotion_code_expired'
    | 'promotion_code_max_redemptions'
    | 'promotion_code_customer_mismatch'
    | 'promotion_code_customer_required'
    | 'promotion_code_first_time_only'
    | 'promotion_code_minimum_amount';
  message: string;
}

/** Why a coupon cannot be redeemed at `at`, or null when it can (Stripe's `valid`). */
export function couponRejection(coupon: CouponState, at: Date): Rejection | null {
  if (coupon.deleted) return { code: 'coupon_deleted', message: 'The coupon has been deleted' };
  if (coupon.redeemBy !== null && at.getTime() >= coupon.redeemBy.getTime())
    return { code: 'coupon_expired', message: 'The coupon can no longer be redeemed (redeem_by has passed)' };
  if (coupon.maxRedemptions !== null && coupon.timesRedeemed >= coupon.maxRedemptions)
    return { code: 'coupon_max_redemptions', message: 'The coupon has reached its max_redemptions' };
  return null;
}

/** Why a promotion code cannot be used in this context, or null when it can. */
export function promotionRejection(promo: PromotionState, ctx: RedemptionContext): Rejection | null {
  if (!promo.active) return { code: 'promotion_code_inactive', message: 'The promotion code is not active' };
  if (promo.expiresAt !== null && ctx.at.getTime() >= promo.expiresAt.getTime())
    return { code: 'promotion_code_expired', message: 'The promotion code has expired' };
  if (promo.maxRedemptions !== null && promo.timesRedeemed >= promo.maxRedemptions)
    return {
      code: 'promotion_code_max_redemptions',
      message: 'The promotion code has reached its max_redemptions',
    };
  if ((promo.customerId !== null || promo.firstTimeTransaction) && ctx.customerId === null)
    return {
      code: 'promotion_code_customer_required',
      message: 'The promotion code is restricted to a customer; a customer is required to use it',
    };
  if (promo.customerId !== null && promo.customerId !== ctx.customerId)
    return {
      code: 'promotion_code_customer_mismatch',
      message: 'The promotion code is restricted to another customer',
    };
  if (promo.firstTimeTransaction && !ctx.firstTimeCustomer)
    return {
      code: 'promotion_code_first_time_only',
      message: 'The promotion code is only for first-time customers',
    };
  if (promo.minimumAmount !== null && ctx.amountSubtotal < promo.minimumAmount)
    return {
      code: 'promotion_code_minimum_amount',
      message: `The promotion code requires an amount of at least ${promo.minimumAmount} ISK`,
    };
  return null;
}
