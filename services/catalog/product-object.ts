import { z } from 'zod';
import type { ProductRow } from '../../db/products';
import { unix } from '../../domain/unix-time';
import { VatTreatmentSchema } from '../vat-treatment-object';

// The product object: the API response and any other output for a product come from presentProduct.

export const ProductSchema = z.object({
  id: z.string(),
  object: z.literal('product'),
  livemode: z.boolean(),
  name: z.string(),
  description: z.string().nullable(),
  images: z.array(z.string()),
  active: z.boolean(),
  vat_rate: z.union([z.literal(0), z.literal(11), z.literal(24)]),
  ...VatTreatmentSchema.shape,
  default_price: z.string().nullable(),
  metadata: z.record(z.string(), z.string()),
  created_at: z.number(),
  updated_at: z.number(),
});

export const DeletedProductSchema = z.object({
  id: z.string(),
  object: z.literal('product'),
  deleted: z.literal(true),
});

/** What a delete answers. */
export function presentDeletedProduct(id: string) {
  return { id, object: 'product' as const, deleted: true as const };
}

export function presentProduct(row: ProductRow) {
  return {
    id: row.id,
    object: 'product' as const,
    livemode: row.livemode,
    name: row.name,
    description: row.description,
    images: row.images,
    active: row.active,
    vat_rate: row.vat_rate,
    vat_category: row.vat_category,
    vat_exemption_reason: row.vat_exemption_reason,
    vat_exemption_reason_code: row.vat_exemption_reason_code,
    default_price: row.default_price_id,
    metadata: row.metadata,
    created_at: unix(row.created_at),
    updated_at: unix(row.updated_at),
  };
}

export type Product = ReturnType<typeof presentProduct>;
