import { z } from 'zod';
import type { PriceRow } from '../../db/prices';
import { unix } from '../../domain/unix-time';

// The price object: the API response and any other output for a price come from presentPrice.

export const PriceSchema = z.object({
  id: z.string(),
  object: z.literal('price'),
  livemode: z.boolean(),
  product: z.string(),
  variant: z.string().nullable(),
  active: z.boolean(),
  currency: z.literal('ISK'),
  unit_amount: z.number().int().describe('VAT-inclusive ISK'),
  type: z.enum(['one_time', 'recurring']),
  recurring: z
    .object({ interval: z.enum(['week', 'month', 'year']), interval_count: z.number().int() })
    .nullable(),
  nickname: z.string().nullable(),
  replaces: z.string().nullable().describe('The price this one replaced'),
  replaced_by: z
    .string()
    .nullable()
    .describe('The price that replaced this one; set once archived by a change'),
  metadata: z.record(z.string(), z.string()),
  created_at: z.number(),
  updated_at: z.number(),
});

export function presentPrice(row: PriceRow) {
  return {
    id: row.id,
    object: 'price' as const,
    livemode: row.livemode,
    product: row.product_id,
    variant: row.variant_id,
    active: row.active,
    currency: row.currency,
    unit_amount: row.unit_amount,
    type: row.type,
    recurring:
      row.type === 'recurring'
        ? { interval: row.recurring_interval!, interval_count: row.recurring_interval_count! }
        : null,
    nickname: row.nickname,
    replaces: row.replaces_id,
    replaced_by: row.replaced_by_id,
    metadata: row.metadata,
    created_at: unix(row.created_at),
    updated_at: unix(row.updated_at),
  };
}

export type Price = ReturnType<typeof presentPrice>;
