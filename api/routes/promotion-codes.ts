import { Router } from 'express';
import { z } from 'zod';
import type { Knex } from '../../db/knex';
import type { Scope } from '../../domain/scope';
import type { OperationDoc } from '../openapi';
import { couponState, createCouponRepository } from '../../db/coupons';
import { createCustomerRepository } from '../../db/customers';
import { createPromotionCodeRepository, type PromotionCodeRow } from '../../db/promotion-codes';
import { ConflictError, InvalidRequestError } from '../../domain/errors';
import { couponRejection } from '../../domain/redemption';
import { createRoutes } from '../route';
import { listOf, listResponse } from '../list';
import { unix } from '../../domain/unix-time';
import { zBool, zInt } from '../validation';
import { pageOptions, pageQuery, zAmount, zCurrency, zId, zStoredMetadata, zUnixTime } from '../fields';
import { findOr404, missingReference } from '../../services/lookup';

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

export const PromotionCodeSchema = z.object({
  id: z.string(),
  object: z.literal('promotion_code'),
  livemode: z.boolean(),
  code: z.string(),
  coupon: z.string(),
  active: z.boolean(),
  customer: z.string().nullable(),
  expires_at: z.number().nullable(),
  max_redemptions: z.number().int().nullable(),
  times_redeemed: z.number().int(),
  restrictions: z.object({
    first_time_transaction: z.boolean(),
    minimum_amount: z.number().int().nullable(),
    minimum_amount_currency: z.literal('ISK').nullable(),
  }),
  metadata: z.record(z.string(), z.string()),
  created_at: z.number(),
  updated_at: z.number(),
});

function presentPromotionCode(row: PromotionCodeRow) {
  return {
    id: row.id,
    object: 'promotion_code' as const,
    livemode: row.livemode,
    code: row.code,
    coupon: row.coupon_id,
    active: row.active,
    customer: row.customer_id,
    expires_at: unix(row.expires_at),
    max_redemptions: row.max_redemptions,
    times_redeemed: row.times_redeemed,
    restrictions: {
      first_time_transaction: row.first_time_transaction,
      minimum_amount: row.minimum_amount,
      minimum_amount_currency: row.minimum_amount === null ? null : ('ISK' as const),
    },
    metadata: row.metadata,
    created_at: unix(row.created_at),
    updated_at: unix(row.updated_at),
  };
}

/** Promotion codes: customer-facing codes applying a coupon, with restrictions (decision 0025). */
export function promotionCodesRouter(deps: { knex: Knex }, docs: OperationDoc[]): Router {
  const router = Router();
  const route = createRoutes(router, docs);
  const codes = createPromotionCodeRepository(deps.knex);
  const coupons = createCouponRepository(deps.knex);
  const customers = createCustomerRepository(deps.knex);
  const tag = 'Promotion Codes';

  const findCode = (scope: Scope, id: string) =>
    findOr404(
      'promotion code',
      scope,
      id,
      () => codes.findById(scope, id),
      () => codes.existsInOtherMode(scope, id),
    );

  route({
    method: 'post',
    path: '/v1/promotion-codes',
    summary: 'Create a promotion code for a coupon',
    tag,
    body: CreatePromotionCode,
    response: PromotionCodeSchema,
    handler: async ({ body, scope }) => {
      const coupon = await coupons.findById(scope, body.coupon);
      if (!coupon) throw missingReference('coupon', body.coupon, 'coupon');
      const problem = couponRejection(couponState(coupon), new Date());
      if (problem) throw new InvalidRequestError(problem.message, { code: problem.code, param: 'coupon' });
      if (body.customer && !(await customers.findById(scope, body.customer)))
        throw missingReference('customer', body.customer, 'customer');
      if (body.expires_at !== undefined) {
        const invalid = (message: string) =>
          new InvalidRequestError(message, { code: 'parameter_invalid', param: 'expires_at' });
        if (body.expires_at.getTime() <= Date.now()) throw invalid('expires_at must be in the future');
        if (coupon.redeem_by && body.expires_at.getTime() > coupon.redeem_by.getTime())
          throw invalid(
            `expires_at must not be after the coupon's redeem_by (${Math.floor(coupon.redeem_by.getTime() / 1000)})`,
          );
      }
      const r = body.restrictions;
      const row = await codes.create(scope, {
        couponId: coupon.id,
        ...(body.code !== undefined && { code: body.code }),
        ...(body.active !== undefined && { active: body.active }),
        ...(body.customer !== undefined && { customerId: body.customer }),
        ...(body.expires_at !== undefined && { expiresAt: body.expires_at }),
        ...(body.max_redemptions !== undefined && { maxRedemptions: body.max_redemptions }),
        ...(r?.first_time_transaction !== undefined && { firstTimeTransaction: r.first_time_transaction }),
        ...(r?.minimum_amount !== undefined && { minimumAmount: r.minimum_amount }),
        ...(body.metadata !== undefined && { metadata: body.metadata }),
      });
      return presentPromotionCode(row);
    },
  });

  route({
    method: 'get',
    path: '/v1/promotion-codes',
    summary: 'List promotion codes, newest first; filter by code (any case), coupon, customer or active',
    tag,
    query: PromotionCodeListQuery,
    response: listOf(PromotionCodeSchema),
    handler: async ({ query, scope }) => {
      const page = await codes.list(scope, {
        ...pageOptions(query),
        ...(query.code !== undefined && { code: query.code }),
        ...(query.coupon !== undefined && { couponId: query.coupon }),
        ...(query.customer !== undefined && { customerId: query.customer }),
        ...(query.active !== undefined && { active: query.active }),
      });
      return listResponse('/v1/promotion-codes', page.data.map(presentPromotionCode), page.hasMore);
    },
  });

  route({
    method: 'get',
    path: '/v1/promotion-codes/:id',
    summary: 'Retrieve a promotion code',
    tag,
    response: PromotionCodeSchema,
    handler: async ({ params, scope }) => presentPromotionCode(await findCode(scope, params.id!)),
  });

  route({
    method: 'patch',
    path: '/v1/promotion-codes/:id',
    summary: 'Deactivate or reactivate a promotion code, or change its metadata',
    tag,
    body: UpdatePromotionCode,
    response: PromotionCodeSchema,
    handler: async ({ params, body, scope }) => {
      const found = await findCode(scope, params.id!);
      if (body.active === true && !found.active) {
        const coupon = await coupons.findAnyById(scope, found.coupon_id);
        if (!coupon || coupon.deleted_at !== null)
          throw new ConflictError(
            'The coupon of this code was deleted; it cannot be reactivated',
            'coupon_deleted',
            'active',
          );
      }
      const row = await codes.update(scope, found.id, body);
      return presentPromotionCode(row ?? found);
    },
  });

  return router;
}
