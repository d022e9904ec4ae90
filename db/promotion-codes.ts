import type { Db } from './knex';
import type { Scope } from '../domain/scope';
import type { PromotionState } from '../domain/redemption';
import { newId, ID_PREFIX, randomBase62 } from '../domain/ids';
import { ConflictError } from '../domain/errors';
import { pageByCreated } from './pagination';
import { existsInOtherMode, isUniqueViolation, type PageOptions } from './tenant';

export interface PromotionCodeRow {
  id: string;
  merchant_id: string;
  livemode: boolean;
  code: string;
  coupon_id: string;
  active: boolean;
  customer_id: string | null;
  expires_at: Date | null;
  max_redemptions: number | null;
  times_redeemed: number;
  first_time_transaction: boolean;
  minimum_amount: number | null;
  metadata: Record<string, string>;
  created_at: Date;
  updated_at: Date;
}

export interface PromotionCodeInput {
  code?: string;
  couponId: string;
  active?: boolean;
  customerId?: string | null;
  expiresAt?: Date | null;
  maxRedemptions?: number | null;
  firstTimeTransaction?: boolean;
  minimumAmount?: number | null;
  metadata?: Record<string, string>;
}

/** A code for a customer to type: eight upper-case letters and digits. */
export function generateCode(): string {
  let code = '';
  while (code.length < 8)
    code += randomBase62(16)
      .toUpperCase()
      .replace(/[^A-Z0-9]/g, '');
  return code.slice(0, 8);
}

/** The restriction state of a promotion code row, for the pure eligibility rules. */
export function promotionState(row: PromotionCodeRow): PromotionState {
  return {
    active: row.active,
    expiresAt: row.expires_at,
    maxRedemptions: row.max_redemptions,
    timesRedeemed: row.times_redeemed,
    customerId: row.customer_id,
    firstTimeTransaction: row.first_time_transaction,
    minimumAmount: row.minimum_amount,
  };
}

const ACTIVE_CODE_INDEX = 'promotion_codes_active_code';

function codeTaken(code: string): ConflictError {
  return new ConflictError(
    `An active promotion code '${code}' already exists (codes are case-insensitive)`,
    'promotion_code_exists',
    'code',
  );
}

export function createPromotionCodeRepository(db: Db) {
  const scoped = (scope: Scope, trx: Db) =>
    trx<PromotionCodeRow>('promotion_codes').where({
      merchant_id: scope.merchantId,
      livemode: scope.livemode,
    });

  return {
    /** Creates a code; an active code with the same text in any case is a 409 on `code`. */
    async create(scope: Scope, input: PromotionCodeInput, trx: Db = db): Promise<PromotionCodeRow> {
      const code = input.code ?? generateCode();
      try {
        const [row] = await trx<PromotionCodeRow>('promotion_codes')
          .insert({
            id: newId(ID_PREFIX.promotionCode),
            merchant_id: scope.merchantId,
            livemode: scope.livemode,
            code,
            coupon_id: input.couponId,
            active: input.active ?? true,
            customer_id: input.customerId ?? null,
            expires_at: input.expiresAt ?? null,
            max_redemptions: input.maxRedemptions ?? null,
            first_time_transaction: input.firstTimeTransaction ?? false,
            minimum_amount: input.minimumAmount ?? null,
            metadata: input.metadata ?? {},
          })
          .returning('*');
        return row!;
      } catch (err) {
        if (isUniqueViolation(err, ACTIVE_CODE_INDEX)) throw codeTaken(code);
        throw err;
      }
    },

    async findById(scope: Scope, id: string, trx: Db = db): Promise<PromotionCodeRow | undefined> {
      return scoped(scope, trx).where({ id }).first();
    },

    /** The active code with this text, in any letter case. */
    async findActiveByCode(scope: Scope, code: string, trx: Db = db): Promise<PromotionCodeRow | undefined> {
      return scoped(scope, trx).where({ active: true }).whereRaw('lower(code) = lower(?)', [code]).first();
    },

    existsInOtherMode: (scope: Scope, id: string, trx: Db = db) =>
      existsInOtherMode(trx, 'promotion_codes', scope, id),

    async list(
      scope: Scope,
      opts: PageOptions & { code?: string; couponId?: string; customerId?: string; active?: boolean },
      trx: Db = db,
    ): Promise<{ data: PromotionCodeRow[]; hasMore: boolean }> {
      const query = scoped(scope, trx);
      if (opts.code !== undefined) query.whereRaw('lower(code) = lower(?)', [opts.code]);
      if (opts.couponId !== undefined) query.where({ coupon_id: opts.couponId });
      if (opts.customerId !== undefined) query.where({ customer_id: opts.customerId });
      if (opts.active !== undefined) query.where({ active: opts.active });
      return pageByCreated(query, 'promotion_codes', scope, opts);
    },

    /** Deactivates or reactivates a code, or changes its metadata; reactivating a taken text is a 409. */
    async update(
      scope: Scope,
      id: string,
      patch: { active?: boolean; metadata?: Record<string, string> },
      trx: Db = db,
    ): Promise<PromotionCodeRow | undefined> {
      try {
        const [row] = await scoped(scope, trx)
          .where({ id })
          .update({
            ...(patch.active !== undefined && { active: patch.active }),
            ...(patch.metadata !== undefined && { metadata: patch.metadata }),
            updated_at: trx.fn.now(),
          })
          .returning('*');
        return row;
      } catch (err) {
        if (isUniqueViolation(err, ACTIVE_CODE_INDEX)) {
          throw new ConflictError(
            'Another active promotion code has the same code (codes are case-insensitive); deactivate it first',
            'promotion_code_exists',
            'active',
          );
        }
        throw err;
      }
    },
  };
}

export type PromotionCodeRepository = ReturnType<typeof createPromotionCodeRepository>;
