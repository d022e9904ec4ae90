import { Router } from 'express';
import { z } from 'zod';
import type { OperationDoc } from '../openapi';
import type { ProductService } from '../../services/catalog/products';
import type { VariantService } from '../../services/catalog/variants';
import { DeletedProductSchema, ProductSchema } from '../../services/catalog/product-object';
import { isVatRate } from '../../domain/vat';
import { VAT_CATEGORIES } from '../../domain/vat-category';
import { createRoutes } from '../route';
import { listOf, listResponse } from '../list';
import { zBool, zInt } from '../validation';
import { pageOptions, pageQuery, zAmount, zId, zLine, zRecurring, zStoredMetadata, zText } from '../fields';
import { variantRoutes } from './product-variants';

/** 0, 11 or 24 (spec §2.1, §8). */
export const zVatRate = zInt().refine(isVatRate, 'must be 0, 11 or 24');

/**
 * The VAT category beside the rate (decision 0234), where a rate is taken. Whether the two go
 * together (S at 11/24; Z, E, O at 0; E with a reason) is the service's check, so every caller gets it.
 */
export const VatTreatmentInput = {
  vat_category: z
    .enum(VAT_CATEGORIES)
    .optional()
    .describe(
      'S standard (vat_rate 11 or 24), Z zero rated, E exempt (with a reason), O outside the scope of VAT (Z, E and O with vat_rate 0). Omitted: Z at 0, S otherwise (O when the merchant has no VAT number)',
    ),
  vat_exemption_reason: zLine(300)
    .min(1)
    .optional()
    .describe('Why the line is exempt (E) or outside the scope of VAT (O): E needs it or a code'),
  vat_exemption_reason_code: z
    .string()
    .regex(/^VATEX-[A-Z0-9-]{1,40}$/, 'must be a VATEX code')
    .optional()
    .describe('A code of the VATEX list for E (e.g. VATEX-EU-132-1B), or VATEX-EU-O for O'),
};

/** On update: null puts a field back to derived (the category) or none (a reason). */
const VatTreatmentPatch = {
  vat_category: VatTreatmentInput.vat_category.unwrap().nullable().optional(),
  vat_exemption_reason: zLine(300).min(1).nullable().optional(),
  vat_exemption_reason_code: VatTreatmentInput.vat_exemption_reason_code.unwrap().nullable().optional(),
};

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
    ...VatTreatmentInput,
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
    ...VatTreatmentPatch,
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
