import { Router } from 'express';
import { z } from 'zod';
import type { OperationDoc } from '../openapi';
import type { CouponService } from '../../services/coupons/coupons';
import { CouponSchema, DeletedCouponSchema } from '../../services/coupons/coupon-object';
import { createRoutes } from '../route';
import { listOf, listResponse } from '../list';
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
    // Zod runs this even when a field failed, so redeem_by may still be the untransformed input.
    if (c.redeem_by instanceof Date && c.redeem_by.getTime() <= Date.now())
      issue('redeem_by', 'must be in the future');
  });

const UpdateCoupon = z
  .object({ name: zLine(255).nullable().optional(), metadata: zStoredMetadata.optional() })
  .strict();

/** Coupons: a percentage or an amount off, for a duration, with redemption limits (decision 0024). */
export function couponsRouter(deps: { coupons: CouponService }, docs: OperationDoc[]): Router {
  const router = Router();
  const route = createRoutes(router, docs);
  const { coupons } = deps;
  const tag = 'Coupons';

  route({
    method: 'post',
    path: '/v1/coupons',
    summary: 'Create a coupon',
    tag,
    body: CreateCoupon,
    response: CouponSchema,
    handler: ({ body, scope }) => coupons.create(scope, body),
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
      return listResponse('/v1/coupons', page.data, page.hasMore);
    },
  });

  route({
    method: 'get',
    path: '/v1/coupons/:id',
    summary: 'Retrieve a coupon',
    tag,
    response: CouponSchema,
    handler: ({ params, scope }) => coupons.retrieve(scope, params.id!),
  });

  route({
    method: 'patch',
    path: '/v1/coupons/:id',
    summary: 'Update the name or metadata of a coupon; its terms never change',
    tag,
    body: UpdateCoupon,
    response: CouponSchema,
    handler: ({ params, body, scope }) => coupons.update(scope, params.id!, body),
  });

  route({
    method: 'delete',
    path: '/v1/coupons/:id',
    summary: 'Delete a coupon: no new redemptions; discounts already applied continue',
    tag,
    response: DeletedCouponSchema,
    handler: ({ params, scope }) => coupons.delete(scope, params.id!),
  });

  return router;
}
