import { Router } from 'express';
import { z } from 'zod';
import type { Knex } from '../../db/knex';
import type { Scope } from '../../domain/scope';
import type { OperationDoc } from '../openapi';
import type { CouponDuration } from '../../domain/discount';
import { couponState, createCouponRepository, type CouponRow } from '../../db/coupons';
import { createProductRepository } from '../../db/products';
import { couponRejection } from '../../domain/redemption';
import { createRoutes } from '../route';
import { listOf, listResponse } from '../list';
import { unix } from '../../domain/unix-time';
import { zInt } from '../validation';
import {
  MAX_AMOUNT,
  pageOptions,
  pageQuery,
  zCurrency,
  zId,
  zLine,
  zPercent,
  zStoredMetadata,
  zUnixTime,
} from '../fields';
import { findOr404, missingReference } from '../../services/lookup';

const CreateCoupon = z
  .object({
    name: zLine(255).nullable().optional().describe('Shown to customers, e.g. on the receipt'),
    percent_off: zPercent.optional().describe('Above 0, at most 100, up to two decimals'),
    amount_off: zInt()
      .pipe(z.number().min(1).max(MAX_AMOUNT))
      .optional()
      .describe('Whole ISK taken off; send this or percent_off'),
    currency: zCurrency.optional().describe('ISK; only with amount_off'),
    duration: z.enum(['once', 'repeating', 'forever']).default('once'),
    duration_in_months: zInt()
      .pipe(z.number().min(1).max(120))
      .optional()
      .describe('With duration=repeating: the discount covers periods that start within this many months'),
    duration_in_periods: zInt()
      .pipe(z.number().min(1).max(1000))
      .optional()
      .describe('With duration=repeating: the discount covers this many billing periods'),
    max_redemptions: zInt().pipe(z.number().min(1).max(2_000_000_000)).optional(),
    redeem_by: zUnixTime().optional().describe('Unix time after which the coupon cannot be redeemed'),
    applies_to: z
      .object({ products: z.array(zId).min(1).max(100) })
      .strict()
      .optional()
      .describe('Only lines of these products are discounted'),
    metadata: zStoredMetadata.optional(),
  })
  .strict()
  .superRefine((c, ctx) => {
    const issue = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: [path], message });
    if (c.percent_off === undefined && c.amount_off === undefined)
      issue('percent_off', 'send percent_off or amount_off');
    if (c.percent_off !== undefined && c.amount_off !== undefined)
      issue('amount_off', 'send percent_off or amount_off, not both');
    if (c.currency !== undefined && c.amount_off === undefined) issue('currency', 'only with amount_off');
    const months = c.duration_in_months !== undefined;
    const periods = c.duration_in_periods !== undefined;
    if (c.duration === 'repeating') {
      if (!months && !periods)
        issue('duration_in_months', 'duration=repeating needs a number of months or periods');
      if (months && periods)
        issue('duration_in_periods', 'send duration_in_months or duration_in_periods, not both');
    } else {
      if (months) issue('duration_in_months', 'only with duration=repeating');
      if (periods) issue('duration_in_periods', 'only with duration=repeating');
    }
    if (c.redeem_by !== undefined && c.redeem_by.getTime() <= Date.now())
      issue('redeem_by', 'must be in the future');
  });

const UpdateCoupon = z
  .object({ name: zLine(255).nullable().optional(), metadata: zStoredMetadata.optional() })
  .strict();

export const CouponSchema = z.object({
  id: z.string(),
  object: z.literal('coupon'),
  livemode: z.boolean(),
  name: z.string().nullable(),
  percent_off: z.number().nullable(),
  amount_off: z.number().int().nullable(),
  currency: z.literal('ISK').nullable(),
  duration: z.enum(['once', 'repeating', 'forever']),
  duration_in_months: z.number().int().nullable(),
  duration_in_periods: z.number().int().nullable(),
  max_redemptions: z.number().int().nullable(),
  times_redeemed: z.number().int(),
  redeem_by: z.number().nullable(),
  applies_to: z.object({ products: z.array(z.string()) }).nullable(),
  valid: z.boolean().describe('Whether the coupon can be redeemed now'),
  metadata: z.record(z.string(), z.string()),
  created_at: z.number(),
  updated_at: z.number(),
});

export function presentCoupon(row: CouponRow) {
  return {
    id: row.id,
    object: 'coupon' as const,
    livemode: row.livemode,
    name: row.name,
    percent_off: row.percent_off === null ? null : Number(row.percent_off),
    amount_off: row.amount_off,
    currency: row.currency,
    duration: row.duration,
    duration_in_months: row.duration_in_months,
    duration_in_periods: row.duration_in_periods,
    max_redemptions: row.max_redemptions,
    times_redeemed: row.times_redeemed,
    redeem_by: unix(row.redeem_by),
    applies_to: row.applies_to_products === null ? null : { products: row.applies_to_products },
    valid: couponRejection(couponState(row), new Date()) === null,
    metadata: row.metadata,
    created_at: unix(row.created_at),
    updated_at: unix(row.updated_at),
  };
}

/** Coupons: a percentage or an amount off, for a duration, with redemption limits (decision 0024). */
export function couponsRouter(deps: { knex: Knex }, docs: OperationDoc[]): Router {
  const router = Router();
  const route = createRoutes(router, docs);
  const coupons = createCouponRepository(deps.knex);
  const products = createProductRepository(deps.knex);
  const tag = 'Coupons';

  const findCoupon = (scope: Scope, id: string) =>
    findOr404(
      'coupon',
      scope,
      id,
      () => coupons.findById(scope, id),
      () => coupons.existsInOtherMode(scope, id),
    );

  route({
    method: 'post',
    path: '/v1/coupons',
    summary: 'Create a coupon',
    tag,
    body: CreateCoupon,
    response: CouponSchema,
    handler: async ({ body, scope }) => {
      let appliesTo: string[] | null = null;
      if (body.applies_to) {
        appliesTo = [...new Set(body.applies_to.products)];
        const found = await products.existingIds(scope, appliesTo);
        const missing = body.applies_to.products.findIndex((p) => !found.has(p));
        if (missing >= 0)
          throw missingReference(
            'product',
            body.applies_to.products[missing]!,
            `applies_to.products.${missing}`,
          );
      }
      const duration: CouponDuration =
        body.duration === 'repeating'
          ? {
              duration: 'repeating',
              months: body.duration_in_months ?? null,
              periods: body.duration_in_periods ?? null,
            }
          : { duration: body.duration };
      const row = await coupons.create(scope, {
        duration,
        appliesToProducts: appliesTo,
        ...(body.name !== undefined && { name: body.name }),
        ...(body.percent_off !== undefined && { percentOff: body.percent_off }),
        ...(body.amount_off !== undefined && { amountOff: body.amount_off }),
        ...(body.max_redemptions !== undefined && { maxRedemptions: body.max_redemptions }),
        ...(body.redeem_by !== undefined && { redeemBy: body.redeem_by }),
        ...(body.metadata !== undefined && { metadata: body.metadata }),
      });
      return presentCoupon(row);
    },
  });

  route({
    method: 'get',
    path: '/v1/coupons',
    summary: 'List coupons, newest first',
    tag,
    query: pageQuery,
    response: listOf(CouponSchema),
    handler: async ({ query, scope }) => {
      const page = await coupons.list(scope, pageOptions(query));
      return listResponse('/v1/coupons', page.data.map(presentCoupon), page.hasMore);
    },
  });

  route({
    method: 'get',
    path: '/v1/coupons/:id',
    summary: 'Retrieve a coupon',
    tag,
    response: CouponSchema,
    handler: async ({ params, scope }) => presentCoupon(await findCoupon(scope, params.id!)),
  });

  route({
    method: 'patch',
    path: '/v1/coupons/:id',
    summary: 'Update the name or metadata of a coupon; its terms never change',
    tag,
    body: UpdateCoupon,
    response: CouponSchema,
    handler: async ({ params, body, scope }) => {
      const found = await findCoupon(scope, params.id!);
      const row = await coupons.update(scope, found.id, body);
      return presentCoupon(row ?? found);
    },
  });

  route({
    method: 'delete',
    path: '/v1/coupons/:id',
    summary: 'Delete a coupon: no new redemptions; discounts already applied continue',
    tag,
    response: z.object({ id: z.string(), object: z.literal('coupon'), deleted: z.literal(true) }),
    handler: async ({ params, scope }) => {
      const found = await findCoupon(scope, params.id!);
      await coupons.delete(scope, found.id);
      return { id: found.id, object: 'coupon' as const, deleted: true as const };
    },
  });

  return router;
}
