import { Router } from 'express';
import { z } from 'zod';
import type { OperationDoc } from '../openapi';
import type { PromotionCodeService } from '../../services/coupons/promotion-codes';
import { PromotionCodeSchema } from '../../services/coupons/promotion-code-object';
import { createRoutes } from '../route';
import { listOf, listResponse } from '../list';
import { zBool, zInt } from '../validation';
import { pageOptions, pageQuery, zAmount, zCurrency, zId, zStoredMetadata, zUnixTime } from '../fields';

const Code = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1 to 64 letters (A-Z), digits, hyphens or underscores');

const CreatePromotionCode = z
  .object({
    coupon: zId,
    code: Code.optional().describe('What the customer types, any letter case; generated when omitted'),
    active: zBool().optional(),
    customer: zId.nullable().optional().describe('Only this customer may use the code'),
    expires_at: zUnixTime().optional().describe("Unix time; not after the coupon's redeem_by"),
    max_redemptions: zInt().pipe(z.number().min(1).max(2_000_000_000)).optional(),
    restrictions: z
      .object({
        first_time_transaction: zBool().optional().describe('Only for customers who have not bought before'),
        minimum_amount: zAmount().optional().describe('Smallest order amount, before discount, in ISK'),
        minimum_amount_currency: zCurrency.optional(),
      })
      .strict()
      .optional(),
    metadata: zStoredMetadata.optional(),
  })
  .strict();

const UpdatePromotionCode = z
  .object({
    active: zBool().optional().describe('false deactivates the code; its text can then be reused'),
    metadata: zStoredMetadata.optional(),
  })
  .strict();

const PromotionCodeListQuery = pageQuery
  .extend({
    code: zId.optional().describe('Any letter case'),
    coupon: zId.optional(),
    customer: zId.optional(),
    active: zBool().optional(),
  })
  .strict();

/** Promotion codes: customer-facing codes applying a coupon, with restrictions (decision 0025). */
export function promotionCodesRouter(
  deps: { promotionCodes: PromotionCodeService },
  docs: OperationDoc[],
): Router {
  const router = Router();
  const route = createRoutes(router, docs);
  const codes = deps.promotionCodes;
  const tag = 'Promotion Codes';

  route({
    method: 'post',
    path: '/v1/promotion-codes',
    summary: 'Create a promotion code for a coupon',
    tag,
    body: CreatePromotionCode,
    response: PromotionCodeSchema,
    handler: ({ body, scope }) => codes.create(scope, body),
  });

  route({
    method: 'get',
    path: '/v1/promotion-codes',
    summary: 'List promotion codes, newest first; filter by code (any case), coupon, customer or active',
    tag,
    query: PromotionCodeListQuery,
    response: listOf(PromotionCodeSchema),
    handler: async ({ query, scope }) => {
      const { code, coupon, customer, active } = query;
      const page = await codes.list(scope, { ...pageOptions(query), code, coupon, customer, active });
      return listResponse('/v1/promotion-codes', page.data, page.hasMore);
    },
  });

  route({
    method: 'get',
    path: '/v1/promotion-codes/:id',
    summary: 'Retrieve a promotion code',
    tag,
    response: PromotionCodeSchema,
    handler: ({ params, scope }) => codes.retrieve(scope, params.id!),
  });

  route({
    method: 'patch',
    path: '/v1/promotion-codes/:id',
    summary: 'Deactivate or reactivate a promotion code, or change its metadata',
    tag,
    body: UpdatePromotionCode,
    response: PromotionCodeSchema,
    handler: ({ params, body, scope }) => codes.update(scope, params.id!, body),
  });

  return router;
}
