import { z } from 'zod';
import type { VariantRow } from '../../db/product-variants';
import type { PriceRow } from '../../db/prices';
import { unix } from '../../domain/unix-time';

// The product variant object, with the amount of its current price.

export const VariantSchema = z.object({
  id: z.string(),
  object: z.literal('product_variant'),
  livemode: z.boolean(),
  product: z.string(),
  name: z.string(),
  price: z.string().nullable().describe('The current price of this variant'),
  unit_amount: z.number().int().nullable().describe('That price, VAT-inclusive ISK'),
  stock: z.number().int().nullable(),
  active: z.boolean(),
  metadata: z.record(z.string(), z.string()),
  created_at: z.number(),
  updated_at: z.number(),
});

export const DeletedVariantSchema = z.object({
  id: z.string(),
  object: z.literal('product_variant'),
  deleted: z.literal(true),
});

/** What a delete answers. */
export function presentDeletedVariant(id: string) {
  return { id, object: 'product_variant' as const, deleted: true as const };
}

export function presentVariant(row: VariantRow, price: PriceRow | undefined) {
  return {
    id: row.id,
    object: 'product_variant' as const,
    livemode: row.livemode,
    product: row.product_id,
    name: row.name,
    price: row.price_id,
    unit_amount: price?.unit_amount ?? null,
    stock: row.stock,
    active: row.active,
    metadata: row.metadata,
    created_at: unix(row.created_at),
    updated_at: unix(row.updated_at),
  };
}

export type Variant = ReturnType<typeof presentVariant>;
