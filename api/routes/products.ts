import { Router } from 'express';
import { z } from 'zod';
import type { Knex } from '../../db/knex';
import type { Scope } from '../../domain/scope';
import type { OperationDoc } from '../openapi';
import { createProductRepository, type ProductRow } from '../../db/products';
import { createPriceRepository } from '../../db/prices';
import { ConflictError, InvalidRequestError } from '../../domain/errors';
import { isVatRate } from '../../domain/vat';
import { createRoutes } from '../route';
import { listOf, listResponse } from '../list';
import { unix } from '../../domain/unix-time';
import { zBool, zInt } from '../validation';
import { pageOptions, pageQuery, zAmount, zId, zLine, zRecurring, zStoredMetadata, zText } from '../fields';
import { findOr404 } from '../../services/lookup';
import { variantRoutes } from './product-variants';

/** 0, 11 or 24 (spec §2.1, §8). */
export const zVatRate = zInt().refine(isVatRate, 'must be 0, 11 or 24');

const Images = z
  .array(z.string().regex(/^https:\/\/[^\s"'<>]{1,2040}$/, 'must be an https URL'))
  .max(8)
  .describe('Up to 8 https image URLs');

const PriceData = z
  .object({
    unit_amount: zAmount().describe('VAT-inclusive ISK'),
    recurring: zRecurring.optional().describe('Omitted: a one-time price'),
  })
  .strict();

const CreateProduct = z
  .object({
    name: zLine(255).min(1),
    description: zText(5000).nullable().optional(),
    images: Images.optional(),
    active: zBool().optional(),
    vat_rate: zVatRate.default(24).describe('VAT percentage included in the prices: 0, 11 or 24'),
    default_price_data: PriceData.optional().describe('Creates a price and makes it the default'),
    metadata: zStoredMetadata.optional(),
  })
  .strict();

const UpdateProduct = z
  .object({
    name: zLine(255).min(1).optional(),
    description: zText(5000).nullable().optional(),
    images: Images.optional(),
    active: zBool().optional(),
    vat_rate: zVatRate.optional(),
    default_price: zId.nullable().optional().describe('An active price of this product'),
    default_price_data: PriceData.optional().describe(
      'A new default price; the current default price, if any, is archived and points to it',
    ),
    metadata: zStoredMetadata.optional(),
  })
  .strict();

const ProductListQuery = pageQuery.extend({ active: zBool().optional() }).strict();

export const ProductSchema = z.object({
  id: z.string(),
  object: z.literal('product'),
  livemode: z.boolean(),
  name: z.string(),
  description: z.string().nullable(),
  images: z.array(z.string()),
  active: z.boolean(),
  vat_rate: z.union([z.literal(0), z.literal(11), z.literal(24)]),
  default_price: z.string().nullable(),
  metadata: z.record(z.string(), z.string()),
  created_at: z.number(),
  updated_at: z.number(),
});

function presentProduct(row: ProductRow) {
  return {
    id: row.id,
    object: 'product' as const,
    livemode: row.livemode,
    name: row.name,
    description: row.description,
    images: row.images,
    active: row.active,
    vat_rate: row.vat_rate,
    default_price: row.default_price_id,
    metadata: row.metadata,
    created_at: unix(row.created_at),
    updated_at: unix(row.updated_at),
  };
}

/** Products (spec §2.4: one-off or recurring pricing, optional variants) and their variants. */
export function productsRouter(deps: { knex: Knex }, docs: OperationDoc[]): Router {
  const router = Router();
  const route = createRoutes(router, docs);
  const products = createProductRepository(deps.knex);
  const prices = createPriceRepository(deps.knex);
  const tag = 'Products';

  const findProduct = (scope: Scope, id: string) =>
    findOr404(
      'product',
      scope,
      id,
      () => products.findById(scope, id),
      () => products.existsInOtherMode(scope, id),
    );

  route({
    method: 'post',
    path: '/v1/products',
    summary: 'Create a product, optionally with a default price',
    tag,
    body: CreateProduct,
    response: ProductSchema,
    handler: async ({ body, scope }) => {
      const row = await deps.knex.transaction(async (trx) => {
        const product = await products.create(
          scope,
          {
            name: body.name,
            vatRate: body.vat_rate,
            ...(body.description !== undefined && { description: body.description }),
            ...(body.images !== undefined && { images: body.images }),
            ...(body.active !== undefined && { active: body.active }),
            ...(body.metadata !== undefined && { metadata: body.metadata }),
          },
          trx,
        );
        if (!body.default_price_data) return product;
        const price = await prices.create(
          scope,
          {
            productId: product.id,
            unitAmount: body.default_price_data.unit_amount,
            recurring: body.default_price_data.recurring ?? null,
          },
          trx,
        );
        return (await products.update(scope, product.id, { defaultPriceId: price.id }, trx))!;
      });
      return presentProduct(row);
    },
  });

  route({
    method: 'get',
    path: '/v1/products',
    summary: 'List products, newest first',
    tag,
    query: ProductListQuery,
    response: listOf(ProductSchema),
    handler: async ({ query, scope }) => {
      const page = await products.list(scope, {
        ...pageOptions(query),
        ...(query.active !== undefined && { active: query.active }),
      });
      return listResponse('/v1/products', page.data.map(presentProduct), page.hasMore);
    },
  });

  route({
    method: 'get',
    path: '/v1/products/:id',
    summary: 'Retrieve a product',
    tag,
    response: ProductSchema,
    handler: async ({ params, scope }) => presentProduct(await findProduct(scope, params.id!)),
  });

  route({
    method: 'patch',
    path: '/v1/products/:id',
    summary: 'Update a product; default_price_data replaces the default price',
    tag,
    body: UpdateProduct,
    response: ProductSchema,
    handler: async ({ params, body, scope }) => {
      const product = await findProduct(scope, params.id!);
      if (body.default_price !== undefined && body.default_price_data !== undefined)
        throw new InvalidRequestError('Send default_price or default_price_data, not both', {
          code: 'parameter_invalid',
          param: 'default_price_data',
        });
      if (typeof body.default_price === 'string') {
        const price = await prices.findById(scope, body.default_price);
        if (!price || price.product_id !== product.id || price.variant_id !== null || !price.active)
          throw new InvalidRequestError(
            `'${body.default_price}' is not an active price of product '${product.id}' (variant prices excluded)`,
            { code: 'parameter_invalid', param: 'default_price' },
          );
      }
      const row = await deps.knex.transaction(async (trx) => {
        let defaultPriceId = body.default_price;
        const data = body.default_price_data;
        if (data) {
          const change = { unitAmount: data.unit_amount, recurring: data.recurring ?? null };
          defaultPriceId = product.default_price_id
            ? (await prices.replace(scope, product.default_price_id, change, trx))!.replacement.id
            : (await prices.create(scope, { productId: product.id, ...change }, trx)).id;
        }
        return products.update(
          scope,
          product.id,
          {
            ...(body.name !== undefined && { name: body.name }),
            ...(body.description !== undefined && { description: body.description }),
            ...(body.images !== undefined && { images: body.images }),
            ...(body.active !== undefined && { active: body.active }),
            ...(body.vat_rate !== undefined && { vatRate: body.vat_rate }),
            ...(defaultPriceId !== undefined && { defaultPriceId }),
            ...(body.metadata !== undefined && { metadata: body.metadata }),
          },
          trx,
        );
      });
      return presentProduct(row!);
    },
  });

  route({
    method: 'delete',
    path: '/v1/products/:id',
    summary: 'Delete a product that never had a price; otherwise archive it with active=false',
    tag,
    response: z.object({ id: z.string(), object: z.literal('product'), deleted: z.literal(true) }),
    handler: async ({ params, scope }) => {
      const product = await findProduct(scope, params.id!);
      if (await products.hasPrices(scope, product.id))
        throw new ConflictError(
          'This product has prices, which past or future sales refer to; archive it with active=false instead',
          'product_has_prices',
          'id',
        );
      await products.delete(scope, product.id);
      return { id: product.id, object: 'product' as const, deleted: true as const };
    },
  });

  variantRoutes(route, { knex: deps.knex, findProduct });
  return router;
}
