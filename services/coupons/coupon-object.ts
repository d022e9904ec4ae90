import { z } from 'zod';
import { couponState, type CouponRow } from '../../db/coupons';
import { couponRejection } from '../../domain/redemption';
import { unix } from '../../domain/unix-time';

// The coupon object: the API response and any other output for a coupon come from presentCoupon.

export const CouponSchema = z.object({
  id: z.string(),
  object: z.literal('coupon'),
  livemode: z.boolean(),
  name: z.string().nullable(),
  percent_off: z.number().nullable(),
  amount_off: z.number().int().nullable(),
  currency: z.literal('ISK').nullable(),
  duration: z.enum(['once', 'repeating', 'forever']),
  duration_in_months: z.number().int().nullable(),
  duration_in_periods: z.number().int().nullable(),
  max_redemptions: z.number().int().nullable(),
  times_redeemed: z.number().int(),
  redeem_by: z.number().nullable(),
  applies_to: z.object({ products: z.array(z.string()) }).nullable(),
  valid: z.boolean().describe('Whether the coupon can be redeemed now'),
  metadata: z.record(z.string(), z.string()),
  created_at: z.number(),
  updated_at: z.number(),
});

export const DeletedCouponSchema = z.object({
  id: z.string(),
  object: z.literal('coupon'),
  deleted: z.literal(true),
});

/** What a delete answers. */
export function presentDeletedCoupon(id: string) {
  return { id, object: 'coupon' as const, deleted: true as const };
}

export function presentCoupon(row: CouponRow) {
  return {
    id: row.id,
    object: 'coupon' as const,
    livemode: row.livemode,
    name: row.name,
    percent_off: row.percent_off === null ? null : Number(row.percent_off),
    amount_off: row.amount_off,
    currency: row.currency,
    duration: row.duration,
    duration_in_months: row.duration_in_months,
    duration_in_periods: row.duration_in_periods,
    max_redemptions: row.max_redemptions,
    times_redeemed: row.times_redeemed,
    redeem_by: unix(row.redeem_by),
    applies_to: row.applies_to_products === null ? null : { products: row.applies_to_products },
    valid: couponRejection(couponState(row), new Date()) === null,
    metadata: row.metadata,
    created_at: unix(row.created_at),
    updated_at: unix(row.updated_at),
  };
}

export type Coupon = ReturnType<typeof presentCoupon>;
