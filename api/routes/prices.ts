import { Router } from 'express';
import { z } from 'zod';
import type { Knex } from '../../db/knex';
import type { OperationDoc } from '../openapi';
import { createPriceRepository, type PriceRow } from '../../db/prices';
import { createProductRepository } from '../../db/products';
import { InvalidRequestError } from '../../domain/errors';
import { createRoutes } from '../route';
import { listOf, listResponse } from '../list';
import { unix } from '../../domain/unix-time';
import { zBool } from '../validation';
import {
  pageOptions,
  pageQuery,
  zAmount,
  zCurrency,
  zId,
  zLine,
  zRecurring,
  zStoredMetadata,
} from '../fields';
import { findOr404, missingReference } from '../../services/lookup';

const Nickname = zLine(255).nullable().optional();

const CreatePrice = z
  .object({
    product: zId,
    unit_amount: zAmount().describe('VAT-inclusive ISK'),
    currency: zCurrency.optional(),
    recurring: zRecurring.optional().describe('Omitted: a one-time price'),
    nickname: Nickname,
    active: zBool().optional(),
    metadata: zStoredMetadata.optional(),
  })
  .strict();

const UpdatePrice = z
  .object({
    unit_amount: zAmount()
      .optional()
      .describe('A new amount replaces the price: a new price is returned and this one is archived'),
    nickname: Nickname,
    active: zBool().optional(),
    metadata: zStoredMetadata.optional(),
  })
  .strict();

const PriceListQuery = pageQuery
  .extend({
    product: zId.optional(),
    variant: zId.optional(),
    active: zBool().optional(),
    type: z.enum(['one_time', 'recurring']).optional(),
  })
  .strict();

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

/**
 * Prices: what a product (or one of its variants) sells for. The amount and billing terms of a
 * price never change; a new amount replaces the price (decision 0021).
 */
export function pricesRouter(deps: { knex: Knex }, docs: OperationDoc[]): Router {
  const router = Router();
  const route = createRoutes(router, docs);
  const prices = createPriceRepository(deps.knex);
  const products = createProductRepository(deps.knex);
  const tag = 'Products';

  route({
    method: 'post',
    path: '/v1/prices',
    summary: 'Create a price for a product',
    tag,
    body: CreatePrice,
    response: PriceSchema,
    handler: async ({ body, scope }) => {
      const product = await products.findById(scope, body.product);
      if (!product) throw missingReference('product', body.product, 'product');
      const row = await prices.create(scope, {
        productId: product.id,
        unitAmount: body.unit_amount,
        recurring: body.recurring ?? null,
        ...(body.active !== undefined && { active: body.active }),
        ...(body.nickname !== undefined && { nickname: body.nickname }),
        ...(body.metadata !== undefined && { metadata: body.metadata }),
      });
      return presentPrice(row);
    },
  });

  route({
    method: 'get',
    path: '/v1/prices',
    summary: 'List prices, newest first',
    tag,
    query: PriceListQuery,
    response: listOf(PriceSchema),
    handler: async ({ query, scope }) => {
      const page = await prices.list(scope, {
        ...pageOptions(query),
        ...(query.product !== undefined && { productId: query.product }),
        ...(query.variant !== undefined && { variantId: query.variant }),
        ...(query.active !== undefined && { active: query.active }),
        ...(query.type !== undefined && { type: query.type }),
      });
      return listResponse('/v1/prices', page.data.map(presentPrice), page.hasMore);
    },
  });

  route({
    method: 'get',
    path: '/v1/prices/:id',
    summary: 'Retrieve a price',
    tag,
    response: PriceSchema,
    handler: async ({ params, scope }) =>
      presentPrice(
        await findOr404(
          'price',
          scope,
          params.id!,
          () => prices.findById(scope, params.id!),
          () => prices.existsInOtherMode(scope, params.id!),
        ),
      ),
  });

  route({
    method: 'patch',
    path: '/v1/prices/:id',
    summary:
      'Update nickname, active or metadata in place; a new unit_amount replaces the price and returns the new one',
    tag,
    body: UpdatePrice,
    response: PriceSchema,
    handler: async ({ params, body, scope }) => {
      const price = await findOr404(
        'price',
        scope,
        params.id!,
        () => prices.findById(scope, params.id!),
        () => prices.existsInOtherMode(scope, params.id!),
      );
      if (body.unit_amount !== undefined && body.unit_amount !== price.unit_amount) {
        if (body.active !== undefined)
          throw new InvalidRequestError(
            'active cannot be combined with a new unit_amount: the new price is active and this one is archived',
            { code: 'parameter_invalid', param: 'active' },
          );
        const replaced = await prices.replace(scope, price.id, {
          unitAmount: body.unit_amount,
          ...(body.nickname !== undefined && { nickname: body.nickname }),
          ...(body.metadata !== undefined && { metadata: body.metadata }),
        });
        return presentPrice(replaced!.replacement);
      }
      const row = await prices.update(scope, price.id, {
        ...(body.active !== undefined && { active: body.active }),
        ...(body.nickname !== undefined && { nickname: body.nickname }),
        ...(body.metadata !== undefined && { metadata: body.metadata }),
      });
      return presentPrice(row!);
    },
  });

  return router;
}
