import { z } from 'zod';
import type { Knex } from '../../db/knex';
import type { Scope } from '../../domain/scope';
import type { DefineRoute } from '../route';
import type { ProductRow } from '../../db/products';
import { createVariantRepository, type VariantRow } from '../../db/product-variants';
import { createPriceRepository, type PriceRow } from '../../db/prices';
import { listOf, listResponse } from '../list';
import { unix } from '../../domain/unix-time';
import { zBool, zInt } from '../validation';
import { pageOptions, pageQuery, zAmount, zLine, zRecurring, zStoredMetadata } from '../fields';
import { findOr404 } from '../../services/lookup';

const Stock = zInt()
  .pipe(z.number().min(0).max(2_000_000_000))
  .nullable()
  .describe('Units in stock; null when stock is not tracked');

const CreateVariant = z
  .object({
    name: zLine(255).min(1).describe('The choice, e.g. "Large" or "Blue, size 42"'),
    unit_amount: zAmount().describe('VAT-inclusive ISK; the variant gets its own price'),
    recurring: zRecurring.optional().describe('Omitted: a one-time price'),
    stock: Stock.optional(),
    active: zBool().optional(),
    metadata: zStoredMetadata.optional(),
  })
  .strict();

const UpdateVariant = z
  .object({
    name: zLine(255).min(1).optional(),
    unit_amount: zAmount()
      .optional()
      .describe('A new amount replaces the variant price; the old one is archived'),
    stock: Stock.optional(),
    active: zBool().optional(),
    metadata: zStoredMetadata.optional(),
  })
  .strict();

const VariantListQuery = pageQuery.extend({ active: zBool().optional() }).strict();

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

function presentVariant(row: VariantRow, price: PriceRow | undefined) {
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

/**
 * `/v1/products/:id/variants`: variants live under their product (decision 0022). Each has its
 * own price, replaced rather than edited when the amount changes, and an optional stock count.
 */
export function variantRoutes(
  route: DefineRoute,
  deps: { knex: Knex; findProduct: (scope: Scope, id: string) => Promise<ProductRow> },
): void {
  const variants = createVariantRepository(deps.knex);
  const prices = createPriceRepository(deps.knex);
  const tag = 'Products';

  const findVariant = async (scope: Scope, productId: string, id: string) => {
    const product = await deps.findProduct(scope, productId);
    return findOr404(
      'product variant',
      scope,
      id,
      () => variants.findById(scope, product.id, id),
      () => variants.existsInOtherMode(scope, id),
      'variant',
    );
  };
  const withPrice = async (scope: Scope, row: VariantRow) =>
    presentVariant(row, row.price_id ? await prices.findById(scope, row.price_id) : undefined);

  route({
    method: 'post',
    path: '/v1/products/:id/variants',
    summary: 'Add a variant to a product, with its own price',
    tag,
    body: CreateVariant,
    response: VariantSchema,
    handler: async ({ params, body, scope }) => {
      const product = await deps.findProduct(scope, params.id!);
      const { variant, price } = await variants.create(scope, product.id, {
        name: body.name,
        unitAmount: body.unit_amount,
        recurring: body.recurring ?? null,
        ...(body.stock !== undefined && { stock: body.stock }),
        ...(body.active !== undefined && { active: body.active }),
        ...(body.metadata !== undefined && { metadata: body.metadata }),
      });
      return presentVariant(variant, price);
    },
  });

  route({
    method: 'get',
    path: '/v1/products/:id/variants',
    summary: "List a product's variants, newest first",
    tag,
    query: VariantListQuery,
    response: listOf(VariantSchema),
    handler: async ({ params, query, scope }) => {
      const product = await deps.findProduct(scope, params.id!);
      const page = await variants.list(scope, product.id, {
        ...pageOptions(query),
        ...(query.active !== undefined && { active: query.active }),
      });
      const byId = await prices.findByIds(
        scope,
        page.data.flatMap((v) => (v.price_id ? [v.price_id] : [])),
      );
      return listResponse(
        `/v1/products/${product.id}/variants`,
        page.data.map((v) => presentVariant(v, v.price_id ? byId.get(v.price_id) : undefined)),
        page.hasMore,
      );
    },
  });

  route({
    method: 'get',
    path: '/v1/products/:id/variants/:variant',
    summary: 'Retrieve a variant',
    tag,
    response: VariantSchema,
    handler: async ({ params, scope }) =>
      withPrice(scope, await findVariant(scope, params.id!, params.variant!)),
  });

  route({
    method: 'patch',
    path: '/v1/products/:id/variants/:variant',
    summary: 'Update a variant; a new unit_amount replaces its price',
    tag,
    body: UpdateVariant,
    response: VariantSchema,
    handler: async ({ params, body, scope }) => {
      const found = await findVariant(scope, params.id!, params.variant!);
      const row = await deps.knex.transaction(async (trx) => {
        if (body.unit_amount !== undefined && found.price_id) {
          const current = await prices.findById(scope, found.price_id, trx);
          if (current && current.unit_amount !== body.unit_amount)
            await prices.replace(scope, found.price_id, { unitAmount: body.unit_amount }, trx);
        }
        return variants.update(
          scope,
          found.product_id,
          found.id,
          {
            ...(body.name !== undefined && { name: body.name }),
            ...(body.stock !== undefined && { stock: body.stock }),
            ...(body.active !== undefined && { active: body.active }),
            ...(body.metadata !== undefined && { metadata: body.metadata }),
          },
          trx,
        );
      });
      return withPrice(scope, row!);
    },
  });

  route({
    method: 'delete',
    path: '/v1/products/:id/variants/:variant',
    summary: 'Delete a variant; its price is archived, past sales keep referring to both',
    tag,
    response: z.object({ id: z.string(), object: z.literal('product_variant'), deleted: z.literal(true) }),
    handler: async ({ params, scope }) => {
      const found = await findVariant(scope, params.id!, params.variant!);
      await variants.delete(scope, found.product_id, found.id);
      return { id: found.id, object: 'product_variant' as const, deleted: true as const };
    },
  });
}
