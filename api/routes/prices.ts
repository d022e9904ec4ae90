import { Router } from 'express';
import { z } from 'zod';
import type { OperationDoc } from '../openapi';
import type { PriceService } from '../../services/catalog/prices';
import { PriceSchema } from '../../services/catalog/price-object';
import { createRoutes } from '../route';
import { listOf, listResponse } from '../list';
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

const Nickname = zLine(255).nullable().optional();

export const CreatePrice = z
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

export const UpdatePrice = z
  .object({
    unit_amount: zAmount()
      .optional()
      .describe('A new amount replaces the price: a new price is returned and this one is archived'),
    nickname: Nickname,
    active: zBool().optional(),
    metadata: zStoredMetadata.optional(),
  })
  .strict();

export const PriceListQuery = pageQuery
  .extend({
    product: zId.optional(),
    variant: zId.optional(),
    active: zBool().optional(),
    type: z.enum(['one_time', 'recurring']).optional(),
  })
  .strict();

/**
 * Prices: what a product (or one of its variants) sells for. The amount and billing terms of a
 * price never change; a new amount replaces the price (decision 0021).
 */
export function pricesRouter(deps: { prices: PriceService }, docs: OperationDoc[]): Router {
  const router = Router();
  const route = createRoutes(router, docs);
  const { prices } = deps;
  const tag = 'Prices';

  route({
    method: 'post',
    path: '/v1/prices',
    summary: 'Create a price for a product',
    tag,
    body: CreatePrice,
    response: PriceSchema,
    handler: ({ body, scope }) => prices.create(scope, body),
  });

  route({
    method: 'get',
    path: '/v1/prices',
    summary: 'List prices, newest first',
    tag,
    query: PriceListQuery,
    response: listOf(PriceSchema),
    handler: async ({ query, scope }) => {
      const { product, variant, active, type } = query;
      const page = await prices.list(scope, { ...pageOptions(query), product, variant, active, type });
      return listResponse('/v1/prices', page.data, page.hasMore);
    },
  });

  route({
    method: 'get',
    path: '/v1/prices/:id',
    summary: 'Retrieve a price',
    tag,
    response: PriceSchema,
    handler: ({ params, scope }) => prices.retrieve(scope, params.id!),
  });

  route({
    method: 'patch',
    path: '/v1/prices/:id',
    summary:
      'Update nickname, active or metadata in place; a new unit_amount replaces the price and returns the new one',
    tag,
    body: UpdatePrice,
    response: PriceSchema,
    handler: ({ params, body, scope }) => prices.update(scope, params.id!, body),
  });

  return router;
}
