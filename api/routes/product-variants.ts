import { z } from 'zod';
import type { DefineRoute } from '../route';
import type { VariantService } from '../../services/catalog/variants';
import { DeletedVariantSchema, VariantSchema } from '../../services/catalog/variant-object';
import { listOf, listResponse } from '../list';
import { zBool, zInt } from '../validation';
import { pageOptions, pageQuery, zAmount, zLine, zRecurring, zStoredMetadata } from '../fields';

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

/** `/v1/products/:id/variants`: variants live under their product (decision 0022). */
export function variantRoutes(route: DefineRoute, variants: VariantService): void {
  const tag = 'Products';

  route({
    method: 'post',
    path: '/v1/products/:id/variants',
    summary: 'Add a variant to a product, with its own price',
    tag,
    body: CreateVariant,
    response: VariantSchema,
    handler: ({ params, body, scope }) => variants.create(scope, params.id!, body),
  });

  route({
    method: 'get',
    path: '/v1/products/:id/variants',
    summary: "List a product's variants, newest first",
    tag,
    query: VariantListQuery,
    response: listOf(VariantSchema),
    handler: async ({ params, query, scope }) => {
      const page = await variants.list(scope, params.id!, { ...pageOptions(query), active: query.active });
      return listResponse(`/v1/products/${page.productId}/variants`, page.data, page.hasMore);
    },
  });

  route({
    method: 'get',
    path: '/v1/products/:id/variants/:variant',
    summary: 'Retrieve a variant',
    tag,
    response: VariantSchema,
    handler: ({ params, scope }) => variants.retrieve(scope, params.id!, params.variant!),
  });

  route({
    method: 'patch',
    path: '/v1/products/:id/variants/:variant',
    summary: 'Update a variant; a new unit_amount replaces its price',
    tag,
    body: UpdateVariant,
    response: VariantSchema,
    handler: ({ params, body, scope }) => variants.update(scope, params.id!, params.variant!, body),
  });

  route({
    method: 'delete',
    path: '/v1/products/:id/variants/:variant',
    summary: 'Delete a variant; its price is archived, past sales keep referring to both',
    tag,
    response: DeletedVariantSchema,
    handler: ({ params, scope }) => variants.delete(scope, params.id!, params.variant!),
  });
}
