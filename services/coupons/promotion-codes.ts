import type { Knex } from '../../db/knex';
import type { Scope } from '../../domain/scope';
import type { PageOptions } from '../../db/tenant';
import { couponState, createCouponRepository } from '../../db/coupons';
import { createCustomerRepository } from '../../db/customers';
import { createPromotionCodeRepository } from '../../db/promotion-codes';
import { ConflictError, InvalidRequestError } from '../../domain/errors';
import { couponRejection } from '../../domain/redemption';
import { findOr404, findReference, missingReference } from '../lookup';
import { presentPromotionCode } from './promotion-code-object';

export interface CreatePromotionCodeInput {
  coupon: string;
  /** Generated when omitted. */
  code?: string;
  active?: boolean;
  customer?: string | null;
  expires_at?: Date;
  max_redemptions?: number;
  restrictions?: { first_time_transaction?: boolean; minimum_amount?: number };
  metadata?: Record<string, string>;
}

export interface PromotionCodeListFilter {
  /** Any letter case. */
  code?: string;
  coupon?: string;
  customer?: string;
  active?: boolean;
}

/** Promotion codes: customer-facing codes applying a coupon, with restrictions (decision 0025). */
export function createPromotionCodeService(deps: { knex: Knex }) {
  const codes = createPromotionCodeRepository(deps.knex);
  const coupons = createCouponRepository(deps.knex);
  const customers = createCustomerRepository(deps.knex);

  const find = (scope: Scope, id: string) =>
    findOr404(
      'promotion code',
      scope,
      id,
      () => codes.findById(scope, id),
      () => codes.existsInOtherMode(scope, id),
    );

  return {
    async create(scope: Scope, input: CreatePromotionCodeInput) {
      const coupon = await coupons.findById(scope, input.coupon);
      if (!coupon) throw missingReference('coupon', input.coupon, 'coupon');
      const problem = couponRejection(couponState(coupon), new Date());
      if (problem) throw new InvalidRequestError(problem.message, { code: problem.code, param: 'coupon' });
      if (input.customer && !(await customers.findById(scope, input.customer)))
        throw missingReference('customer', input.customer, 'customer');
      if (input.expires_at !== undefined) {
        const invalid = (message: string) =>
          new InvalidRequestError(message, { code: 'parameter_invalid', param: 'expires_at' });
        if (input.expires_at.getTime() <= Date.now()) throw invalid('expires_at must be in the future');
        if (coupon.redeem_by && input.expires_at.getTime() > coupon.redeem_by.getTime())
          throw invalid(
            `expires_at must not be after the coupon's redeem_by (${Math.floor(coupon.redeem_by.getTime() / 1000)})`,
          );
      }
      const r = input.restrictions;
      const row = await codes.create(scope, {
        couponId: coupon.id,
        ...(input.code !== undefined && { code: input.code }),
        ...(input.active !== undefined && { active: input.active }),
        ...(input.customer !== undefined && { customerId: input.customer }),
        ...(input.expires_at !== undefined && { expiresAt: input.expires_at }),
        ...(input.max_redemptions !== undefined && { maxRedemptions: input.max_redemptions }),
        ...(r?.first_time_transaction !== undefined && { firstTimeTransaction: r.first_time_transaction }),
        ...(r?.minimum_amount !== undefined && { minimumAmount: r.minimum_amount }),
        ...(input.metadata !== undefined && { metadata: input.metadata }),
      });
      return presentPromotionCode(row);
    },

    async list(scope: Scope, opts: PageOptions & PromotionCodeListFilter) {
      const { coupon, customer, ...rest } = opts;
      if (coupon !== undefined)
        await findReference('coupon', coupon, 'coupon', () => coupons.findById(scope, coupon));
      if (customer !== undefined)
        await findReference('customer', customer, 'customer', () => customers.findById(scope, customer));
      const page = await codes.list(scope, { ...rest, couponId: coupon, customerId: customer });
      return { data: page.data.map(presentPromotionCode), hasMore: page.hasMore };
    },

    retrieve: async (scope: Scope, id: string) => presentPromotionCode(await find(scope, id)),

    /** A deactivated code can be reactivated unless its coupon was deleted meanwhile. */
    async update(scope: Scope, id: string, input: { active?: boolean; metadata?: Record<string, string> }) {
      const found = await find(scope, id);
      if (input.active === true && !found.active) {
        const coupon = await coupons.findAnyById(scope, found.coupon_id);
        if (!coupon || coupon.deleted_at !== null)
          throw new ConflictError(
            'The coupon of this code was deleted; it cannot be reactivated',
            'coupon_deleted',
            'active',
          );
      }
      const row = await codes.update(scope, found.id, input);
      return presentPromotionCode(row ?? found);
    },
  };
}

export type PromotionCodeService = ReturnType<typeof createPromotionCodeService>;
