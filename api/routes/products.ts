import { Router } from 'express';
import { z } from 'zod';
import type { OperationDoc } from '../openapi';
import type { ProductService } from '../../services/catalog/products';
import type { VariantService } from '../../services/catalog/variants';
import { DeletedProductSchema, ProductSchema } from '../../services/catalog/product-object';
import { isVatRate } from '../../domain/vat';
import { createRoutes } from '../route';
import { listOf, listResponse } from '../list';
import { zBool, zInt } from '../validation';
import { pageOptions, pageQuery, zAmount, zId, zLine, zRecurring, zStoredMetadata, zText } from '../fields';
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

export const CreateProduct = z
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

export const UpdateProduct = z
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

export const ProductListQuery = pageQuery.extend({ active: zBool().optional() }).strict();

/** Products (spec §2.4: one-off or recurring pricing, optional variants) and their variants. */
export function productsRouter(
  deps: { products: ProductService; variants: VariantService },
  docs: OperationDoc[],
): Router {
  const router = Router();
  const route = createRoutes(router, docs);
  const { products } = deps;
  const tag = 'Products';

  route({
    method: 'post',
    path: '/v1/products',
    summary: 'Create a product, optionally with a default price',
    tag,
    body: CreateProduct,
    response: ProductSchema,
    handler: ({ body, scope }) => products.create(scope, body),
  });

  route({
    method: 'get',
    path: '/v1/products',
    summary: 'List products, newest first',
    tag,
    query: ProductListQuery,
    response: listOf(ProductSchema),
    handler: async ({ query, scope }) => {
      const page = await products.list(scope, { ...pageOptions(query), active: query.active });
      return listResponse('/v1/products', page.data, page.hasMore);
    },
  });

  route({
    method: 'get',
    path: '/v1/products/:id',
    summary: 'Retrieve a product',
    tag,
    response: ProductSchema,
    handler: ({ params, scope }) => products.retrieve(scope, params.id!),
  });

  route({
    method: 'patch',
    path: '/v1/products/:id',
    summary: 'Update a product; default_price_data replaces the default price',
    tag,
    body: UpdateProduct,
    response: ProductSchema,
    handler: ({ params, body, scope }) => products.update(scope, params.id!, body),
  });

  route({
    method: 'delete',
    path: '/v1/products/:id',
    summary: 'Delete a product that never had a price; otherwise archive it with active=false',
    tag,
    response: DeletedProductSchema,
    handler: ({ params, scope }) => products.delete(scope, params.id!),
  });

  variantRoutes(route, deps.variants);
  return router;
}
