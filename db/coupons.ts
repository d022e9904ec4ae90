import type { Db } from './knex';
import type { Scope } from '../domain/scope';
import type { CouponState } from '../domain/redemption';
import type { CouponDuration, CouponTerms } from '../domain/discount';
import { newId, ID_PREFIX } from '../domain/ids';
import { pageByCreated } from './pagination';
import { existsInOtherMode, inTransaction, type PageOptions } from './tenant';

export interface CouponRow {
  id: string;
  merchant_id: string;
  livemode: boolean;
  name: string | null;
  /** numeric(5,2) arrives as text ("12.50"), which keeps it out of floating point. */
  percent_off: string | null;
  amount_off: number | null;
  currency: 'ISK' | null;
  duration: 'once' | 'repeating' | 'forever';
  duration_in_months: number | null;
  duration_in_periods: number | null;
  max_redemptions: number | null;
  times_redeemed: number;
  redeem_by: Date | null;
  applies_to_products: string[] | null;
  metadata: Record<string, string>;
  created_at: Date;
  updated_at: Date;
  deleted_at: Date | null;
}

export interface CouponInput {
  name?: string | null;
  percentOff?: string | null;
  amountOff?: number | null;
  duration: CouponDuration;
  maxRedemptions?: number | null;
  redeemBy?: Date | null;
  appliesToProducts?: string[] | null;
  metadata?: Record<string, string>;
}

/** The discount terms of a coupon row, for the pure discount functions. */
export function couponTerms(row: CouponRow): CouponTerms {
  return {
    percentOff: row.percent_off,
    amountOff: row.amount_off,
    appliesToProducts: row.applies_to_products,
  };
}

/** The redeemability state of a coupon row, for the pure eligibility rules. */
export function couponState(row: CouponRow): CouponState {
  return {
    deleted: row.deleted_at !== null,
    redeemBy: row.redeem_by,
    maxRedemptions: row.max_redemptions,
    timesRedeemed: row.times_redeemed,
  };
}

export function createCouponRepository(db: Db) {
  const scoped = (scope: Scope, trx: Db) =>
    trx<CouponRow>('coupons')
      .where({ merchant_id: scope.merchantId, livemode: scope.livemode })
      .whereNull('deleted_at');

  return {
    async create(scope: Scope, input: CouponInput, trx: Db = db): Promise<CouponRow> {
      const d = input.duration;
      const [row] = await trx<CouponRow>('coupons')
        .insert({
          id: newId(ID_PREFIX.coupon),
          merchant_id: scope.merchantId,
          livemode: scope.livemode,
          name: input.name ?? null,
          percent_off: input.percentOff ?? null,
          amount_off: input.amountOff ?? null,
          currency: input.amountOff != null ? 'ISK' : null,
          duration: d.duration,
          duration_in_months: d.duration === 'repeating' ? d.months : null,
          duration_in_periods: d.duration === 'repeating' ? d.periods : null,
          max_redemptions: input.maxRedemptions ?? null,
          redeem_by: input.redeemBy ?? null,
          applies_to_products: input.appliesToProducts ?? null,
          metadata: input.metadata ?? {},
        })
        .returning('*');
      return row!;
    },

    async findById(scope: Scope, id: string, trx: Db = db): Promise<CouponRow | undefined> {
      return scoped(scope, trx).where({ id }).first();
    },

    /** Also finds a deleted coupon: promotion codes and redemptions still refer to it. */
    async findAnyById(scope: Scope, id: string, trx: Db = db): Promise<CouponRow | undefined> {
      return trx<CouponRow>('coupons')
        .where({ id, merchant_id: scope.merchantId, livemode: scope.livemode })
        .first();
    },

    existsInOtherMode: (scope: Scope, id: string, trx: Db = db) =>
      existsInOtherMode(trx, 'coupons', scope, id, { softDeleted: true }),

    async list(
      scope: Scope,
      opts: PageOptions,
      trx: Db = db,
    ): Promise<{ data: CouponRow[]; hasMore: boolean }> {
      return pageByCreated(scoped(scope, trx), 'coupons', scope, opts);
    },

    /** Only the name and metadata change: the terms are what redemptions were promised. */
    async update(
      scope: Scope,
      id: string,
      patch: { name?: string | null; metadata?: Record<string, string> },
      trx: Db = db,
    ): Promise<CouponRow | undefined> {
      const [row] = await scoped(scope, trx)
        .where({ id })
        .update({
          ...(patch.name !== undefined && { name: patch.name }),
          ...(patch.metadata !== undefined && { metadata: patch.metadata }),
          updated_at: trx.fn.now(),
        })
        .returning('*');
      return row;
    },

    /**
     * Soft delete: no new redemptions; discounts already applied keep running. Its promotion codes
     * are deactivated, which frees their text for new codes.
     */
    async delete(scope: Scope, id: string, trx: Db = db): Promise<CouponRow | undefined> {
      return inTransaction(trx, async (t) => {
        const [row] = await scoped(scope, t).where({ id }).update({ deleted_at: t.fn.now() }).returning('*');
        if (row)
          await t('promotion_codes')
            .where({ merchant_id: scope.merchantId, livemode: scope.livemode, coupon_id: id, active: true })
            .update({ active: false, updated_at: t.fn.now() });
        return row;
      });
    },
  };
}

export type CouponRepository = ReturnType<typeof createCouponRepository>;
