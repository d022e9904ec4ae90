import type { Knex } from '../../db/knex';
import type { Scope } from '../../domain/scope';
import type { PageOptions } from '../../db/tenant';
import type { CouponDuration } from '../../domain/discount';
import { createCouponRepository } from '../../db/coupons';
import { createProductRepository } from '../../db/products';
import { findOr404, missingReference } from '../lookup';
import { presentDeletedCoupon, presentCoupon } from './coupon-object';

/** A coupon's terms as the API takes them, already validated (one of percent_off, amount_off). */
export interface CreateCouponInput {
  name?: string | null;
  /** Up to two decimals, as text so it stays out of floating point. */
  percent_off?: string;
  amount_off?: number;
  duration: 'once' | 'repeating' | 'forever';
  duration_in_months?: number;
  duration_in_periods?: number;
  max_redemptions?: number;
  redeem_by?: Date;
  applies_to?: { products: string[] };
  metadata?: Record<string, string>;
}

/** Coupons: a percentage or an amount off, for a duration, with redemption limits (decision 0024). */
export function createCouponService(deps: { knex: Knex }) {
  const coupons = createCouponRepository(deps.knex);
  const products = createProductRepository(deps.knex);

  const find = (scope: Scope, id: string) =>
    findOr404(
      'coupon',
      scope,
      id,
      () => coupons.findById(scope, id),
      () => coupons.existsInOtherMode(scope, id),
    );

  return {
    async create(scope: Scope, input: CreateCouponInput) {
      let appliesTo: string[] | null = null;
      if (input.applies_to) {
        appliesTo = [...new Set(input.applies_to.products)];
        const found = await products.existingIds(scope, appliesTo);
        const missing = input.applies_to.products.findIndex((p) => !found.has(p));
        if (missing >= 0)
          throw missingReference(
            'product',
            input.applies_to.products[missing]!,
            `applies_to.products.${missing}`,
          );
      }
      const duration: CouponDuration =
        input.duration === 'repeating'
          ? {
              duration: 'repeating',
              months: input.duration_in_months ?? null,
              periods: input.duration_in_periods ?? null,
            }
          : { duration: input.duration };
      const row = await coupons.create(scope, {
        duration,
        appliesToProducts: appliesTo,
        ...(input.name !== undefined && { name: input.name }),
        ...(input.percent_off !== undefined && { percentOff: input.percent_off }),
        ...(input.amount_off !== undefined && { amountOff: input.amount_off }),
        ...(input.max_redemptions !== undefined && { maxRedemptions: input.max_redemptions }),
        ...(input.redeem_by !== undefined && { redeemBy: input.redeem_by }),
        ...(input.metadata !== undefined && { metadata: input.metadata }),
      });
      return presentCoupon(row);
    },

    async list(scope: Scope, opts: PageOptions) {
      const page = await coupons.list(scope, opts);
      return { data: page.data.map(presentCoupon), hasMore: page.hasMore };
    },

    retrieve: async (scope: Scope, id: string) => presentCoupon(await find(scope, id)),

    /** Only the name and metadata change; the terms of a coupon never do. */
    async update(
      scope: Scope,
      id: string,
      input: { name?: string | null; metadata?: Record<string, string> },
    ) {
      const found = await find(scope, id);
      const row = await coupons.update(scope, found.id, input);
      return presentCoupon(row ?? found);
    },

    /** No new redemptions; discounts already applied continue. */
    async delete(scope: Scope, id: string) {
      const found = await find(scope, id);
      await coupons.delete(scope, found.id);
      return presentDeletedCoupon(found.id);
    },
  };
}

export type CouponService = ReturnType<typeof createCouponService>;
