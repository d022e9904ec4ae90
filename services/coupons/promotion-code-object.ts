import { z } from 'zod';
import type { PromotionCodeRow } from '../../db/promotion-codes';
import { unix } from '../../domain/unix-time';

// The promotion code object: the API response and any other output for a code come from
// presentPromotionCode.

export const PromotionCodeSchema = z.object({
  id: z.string(),
  object: z.literal('promotion_code'),
  livemode: z.boolean(),
  code: z.string(),
  coupon: z.string(),
  active: z.boolean(),
  customer: z.string().nullable(),
  expires_at: z.number().nullable(),
  max_redemptions: z.number().int().nullable(),
  times_redeemed: z.number().int(),
  restrictions: z.object({
    first_time_transaction: z.boolean(),
    minimum_amount: z.number().int().nullable(),
    minimum_amount_currency: z.literal('ISK').nullable(),
  }),
  metadata: z.record(z.string(), z.string()),
  created_at: z.number(),
  updated_at: z.number(),
});

export function presentPromotionCode(row: PromotionCodeRow) {
  return {
    id: row.id,
    object: 'promotion_code' as const,
    livemode: row.livemode,
    code: row.code,
    coupon: row.coupon_id,
    active: row.active,
    customer: row.customer_id,
    expires_at: unix(row.expires_at),
    max_redemptions: row.max_redemptions,
    times_redeemed: row.times_redeemed,
    restrictions: {
      first_time_transaction: row.first_time_transaction,
      minimum_amount: row.minimum_amount,
      minimum_amount_currency: row.minimum_amount === null ? null : ('ISK' as const),
    },
    metadata: row.metadata,
    created_at: unix(row.created_at),
    updated_at: unix(row.updated_at),
  };
}

export type PromotionCode = ReturnType<typeof presentPromotionCode>;
