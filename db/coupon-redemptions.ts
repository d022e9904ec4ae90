import type { Db, Knex } from './knex';
import type { Scope } from '../domain/scope';
import { newId, ID_PREFIX } from '../domain/ids';
import { ConflictError, InvalidRequestError } from '../domain/errors';
import {
  lineIsEligible,
  priceAmount,
  priceLines,
  type AmountBreakdown,
  type LineInput,
  type PricedLine,
} from '../domain/discount';
import { couponRejection, promotionRejection, type Rejection } from '../domain/redemption';
import { couponState, couponTerms, type CouponRow } from './coupons';
import { promotionState, type PromotionCodeRow } from './promotion-codes';

export interface RedemptionRow {
  id: string;
  merchant_id: string;
  livemode: boolean;
  coupon_id: string;
  promotion_code_id: string | null;
  customer_id: string | null;
  idempotency_key: string;
  amount_subtotal: number;
  discount_amount: number;
  amount: number;
  created_at: Date;
}

/** What is redeemed: a coupon directly, or a promotion code by id or by the text a customer typed. */
export type RedemptionTarget = { couponId: string } | { promotionCodeId: string } | { code: string };

export interface RedemptionRequest {
  target: RedemptionTarget;
  customerId?: string | null;
  /** A plain amount, or line items (needed for a coupon restricted to products). */
  amount?: number;
  lines?: readonly LineInput[];
  /**
   * Business identity of what redeems (e.g. the checkout session id): a retry with the same key
   * returns the first redemption and counts nothing twice.
   */
  idempotencyKey: string;
  /** Defaults to now; a test clock's time for customers bound to one. */
  at?: Date;
}

export interface Pricing extends AmountBreakdown {
  lines: PricedLine[] | null;
}

export interface RedemptionResult {
  redemption: RedemptionRow;
  couponId: string;
  promotionCodeId: string | null;
  pricing: Pricing;
  replayed: boolean;
}

interface Resolved {
  coupon: CouponRow;
  promo: PromotionCodeRow | null;
  param: 'coupon' | 'promotion_code';
}

function reject(r: Rejection | { code: string; message: string }, param: string): InvalidRequestError {
  return new InvalidRequestError(r.message, { code: r.code, param });
}

/**
 * Coupon redemption for checkout sessions and subscriptions. Counting is exact under concurrency:
 * each counter moves by one conditional UPDATE (`times_redeemed < max_redemptions`), which
 * PostgreSQL re-evaluates after waiting on a concurrent writer, and a CHECK constraint backs it.
 */
export function createRedemptionService(db: Db) {
  async function resolve(scope: Scope, target: RedemptionTarget, trx: Db): Promise<Resolved> {
    const base = { merchant_id: scope.merchantId, livemode: scope.livemode };
    if ('couponId' in target) {
      const coupon = await trx<CouponRow>('coupons')
        .where({ ...base, id: target.couponId })
        .first();
      if (!coupon)
        throw reject({ code: 'resource_missing', message: `No such coupon: '${target.couponId}'` }, 'coupon');
      return { coupon, promo: null, param: 'coupon' };
    }
    const promos = trx<PromotionCodeRow>('promotion_codes').where(base);
    const promo =
      'promotionCodeId' in target
        ? await promos.where({ id: target.promotionCodeId }).first()
        : await promos.where({ active: true }).whereRaw('lower(code) = lower(?)', [target.code]).first();
    if (!promo)
      throw reject({ code: 'promotion_code_invalid', message: 'No such promotion code' }, 'promotion_code');
    const coupon = await trx<CouponRow>('coupons')
      .where({ ...base, id: promo.coupon_id })
      .first();
    return { coupon: coupon!, promo, param: 'promotion_code' };
  }

  /** A customer is first-time while nothing was bought with a discount before (see decision 0025). */
  async function isFirstTimeCustomer(scope: Scope, customerId: string, trx: Db = db): Promise<boolean> {
    const row: unknown = await trx('coupon_redemptions')
      .where({ merchant_id: scope.merchantId, livemode: scope.livemode, customer_id: customerId })
      .first('id');
    return row === undefined;
  }

  /** Resolves, prices and checks a request; locks the customer when a first-time rule needs it. */
  async function evaluate(scope: Scope, req: RedemptionRequest, trx: Db, lock: boolean) {
    const at = req.at ?? new Date();
    const resolved = await resolve(scope, req.target, trx);
    const { coupon, promo, param } = resolved;
    const customerId = req.customerId ?? null;
    if (customerId !== null) {
      const customers = trx('customers')
        .where({ id: customerId, merchant_id: scope.merchantId, livemode: scope.livemode })
        .whereNull('deleted_at');
      // Two first purchases of one customer at once: the second waits here, then sees the first.
      if (lock && promo?.first_time_transaction) customers.forUpdate();
      if ((await customers.first('id')) === undefined)
        throw reject({ code: 'resource_missing', message: `No such customer: '${customerId}'` }, 'customer');
    }

    const terms = couponTerms(coupon);
    let pricing: Pricing;
    if (req.lines !== undefined) {
      if (terms.appliesToProducts !== null && !req.lines.some((l) => lineIsEligible(l, terms)))
        throw reject(notApplicable, param);
      const priced = priceLines(req.lines, terms);
      pricing = { ...priced, lines: priced.lines };
    } else {
      if (terms.appliesToProducts !== null) throw reject(notApplicable, param);
      pricing = { ...priceAmount(req.amount ?? 0, terms), lines: null };
    }

    const couponProblem = couponRejection(couponState(coupon), at);
    if (couponProblem) throw reject(couponProblem, param);
    if (promo) {
      const firstTime =
        promo.first_time_transaction && customerId !== null
          ? await isFirstTimeCustomer(scope, customerId, trx)
          : true;
      const promoProblem = promotionRejection(promotionState(promo), {
        at,
        customerId,
        firstTimeCustomer: firstTime,
        amountSubtotal: pricing.amountSubtotal,
      });
      if (promoProblem) throw reject(promoProblem, param);
    }
    return { ...resolved, pricing, at, customerId };
  }

  async function countPromotion(scope: Scope, promo: PromotionCodeRow, at: Date, trx: Knex.Transaction) {
    const rows = await trx('promotion_codes')
      .where({ id: promo.id, merchant_id: scope.merchantId, livemode: scope.livemode, active: true })
      .andWhere((q) => q.whereNull('expires_at').orWhere('expires_at', '>', at))
      .andWhere((q) => q.whereNull('max_redemptions').orWhereRaw('times_redeemed < max_redemptions'))
      .increment('times_redeemed', 1)
      .returning('id');
    return rows.length === 1;
  }

  async function countCoupon(scope: Scope, coupon: CouponRow, at: Date, trx: Knex.Transaction) {
    const rows = await trx('coupons')
      .where({ id: coupon.id, merchant_id: scope.merchantId, livemode: scope.livemode })
      .whereNull('deleted_at')
      .andWhere((q) => q.whereNull('redeem_by').orWhere('redeem_by', '>', at))
      .andWhere((q) => q.whereNull('max_redemptions').orWhereRaw('times_redeemed < max_redemptions'))
      .increment('times_redeemed', 1)
      .returning('id');
    return rows.length === 1;
  }

  /** Whether a stored redemption was made for this target (a code may have been deactivated since). */
  async function sameTarget(row: RedemptionRow, target: RedemptionTarget, trx: Db): Promise<boolean> {
    if ('couponId' in target) return row.promotion_code_id === null && row.coupon_id === target.couponId;
    if ('promotionCodeId' in target) return row.promotion_code_id === target.promotionCodeId;
    if (row.promotion_code_id === null) return false;
    const promo = await trx<PromotionCodeRow>('promotion_codes')
      .where({ id: row.promotion_code_id })
      .first('code');
    return promo !== undefined && promo.code.toLowerCase() === target.code.toLowerCase();
  }

  async function replay(row: RedemptionRow, target: RedemptionTarget, trx: Db): Promise<RedemptionResult> {
    if (!(await sameTarget(row, target, trx))) {
      throw new ConflictError(
        `Redemption key '${row.idempotency_key}' was already used for another coupon or promotion code`,
        'idempotency_key_reused',
        'couponId' in target ? 'coupon' : 'promotion_code',
      );
    }
    return {
      redemption: row,
      couponId: row.coupon_id,
      promotionCodeId: row.promotion_code_id,
      pricing: {
        amountSubtotal: row.amount_subtotal,
        discountAmount: row.discount_amount,
        amount: row.amount,
        lines: null,
      },
      replayed: true,
    };
  }

  return {
    isFirstTimeCustomer,

    /** Checks a request and computes its discount without counting it (for a checkout preview). */
    async preview(scope: Scope, req: RedemptionRequest, trx: Db = db): Promise<Pricing> {
      return (await evaluate(scope, req, trx, false)).pricing;
    },

    /**
     * Redeems once per idempotency key, in its own savepoint when given a transaction: either the
     * redemption row and both counters are written, or nothing is.
     */
    async redeem(scope: Scope, req: RedemptionRequest, trx: Db = db): Promise<RedemptionResult> {
      return trx.transaction(async (t) => {
        const existing = await t<RedemptionRow>('coupon_redemptions')
          .where({
            merchant_id: scope.merchantId,
            livemode: scope.livemode,
            idempotency_key: req.idempotencyKey,
          })
          .first();
        if (existing) return replay(existing, req.target, t);

        const ev = await evaluate(scope, req, t, true);
        const [inserted] = await t<RedemptionRow>('coupon_redemptions')
          .insert({
            id: newId(ID_PREFIX.couponRedemption),
            merchant_id: scope.merchantId,
            livemode: scope.livemode,
            coupon_id: ev.coupon.id,
            promotion_code_id: ev.promo?.id ?? null,
            customer_id: ev.customerId,
            idempotency_key: req.idempotencyKey,
            amount_subtotal: ev.pricing.amountSubtotal,
            discount_amount: ev.pricing.discountAmount,
            amount: ev.pricing.amount,
          })
          .onConflict(['merchant_id', 'livemode', 'idempotency_key'])
          .ignore()
          .returning('*');
        if (!inserted) {
          // A concurrent call with the same key committed first (we waited on its row).
          const first = await t<RedemptionRow>('coupon_redemptions')
            .where({
              merchant_id: scope.merchantId,
              livemode: scope.livemode,
              idempotency_key: req.idempotencyKey,
            })
            .first();
          return replay(first!, req.target, t);
        }

        if (ev.promo && !(await countPromotion(scope, ev.promo, ev.at, t))) {
          const now = await t<PromotionCodeRow>('promotion_codes').where({ id: ev.promo.id }).first();
          throw reject(
            promotionRejection(promotionState(now!), {
              at: ev.at,
              customerId: ev.customerId,
              firstTimeCustomer: true,
              amountSubtotal: ev.pricing.amountSubtotal,
            }) ?? {
              code: 'promotion_code_max_redemptions',
              message: 'The promotion code can no longer be used',
            },
            ev.param,
          );
        }
        if (!(await countCoupon(scope, ev.coupon, ev.at, t))) {
          const now = await t<CouponRow>('coupons').where({ id: ev.coupon.id }).first();
          throw reject(
            couponRejection(couponState(now!), ev.at) ?? {
              code: 'coupon_max_redemptions',
              message: 'The coupon can no longer be redeemed',
            },
            ev.param,
          );
        }
        return {
          redemption: inserted,
          couponId: ev.coupon.id,
          promotionCodeId: ev.promo?.id ?? null,
          pricing: ev.pricing,
          replayed: false,
        };
      });
    },

    /**
     * Undoes the redemption made under `idempotencyKey` (a purchase whose payment never came,
     * decision 0103): the row goes and both counters go down by one, so the code can be used again.
     */
    async release(scope: Scope, idempotencyKey: string, trx: Knex.Transaction): Promise<void> {
      const [row] = await trx<RedemptionRow>('coupon_redemptions')
        .where({ merchant_id: scope.merchantId, livemode: scope.livemode, idempotency_key: idempotencyKey })
        .delete()
        .returning('*');
      if (!row) return;
      const base = { merchant_id: scope.merchantId, livemode: scope.livemode };
      await trx('coupons')
        .where({ ...base, id: row.coupon_id })
        .where('times_redeemed', '>', 0)
        .decrement('times_redeemed', 1);
      if (row.promotion_code_id)
        await trx('promotion_codes')
          .where({ ...base, id: row.promotion_code_id })
          .where('times_redeemed', '>', 0)
          .decrement('times_redeemed', 1);
    },
  };
}

const notApplicable = {
  code: 'coupon_not_applicable',
  message: 'The coupon applies only to certain products, and none of them is being bought',
};

export type RedemptionService = ReturnType<typeof createRedemptionService>;
