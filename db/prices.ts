import type { Db } from './knex';
import type { Scope } from '../domain/scope';
import { newId, ID_PREFIX } from '../domain/ids';
import { ConflictError } from '../domain/errors';
import { pageByCreated } from './pagination';
import { existsInOtherMode, inTransaction, type PageOptions } from './tenant';

export type RecurringInterval = 'week' | 'month' | 'year';
export interface Recurring {
  interval: RecurringInterval;
  intervalCount: number;
}

export interface PriceRow {
  id: string;
  merchant_id: string;
  livemode: boolean;
  product_id: string;
  variant_id: string | null;
  active: boolean;
  currency: 'ISK';
  unit_amount: number;
  type: 'one_time' | 'recurring';
  recurring_interval: RecurringInterval | null;
  recurring_interval_count: number | null;
  nickname: string | null;
  replaces_id: string | null;
  replaced_by_id: string | null;
  metadata: Record<string, string>;
  created_at: Date;
  updated_at: Date;
}

export interface PriceInput {
  productId: string;
  variantId?: string | null;
  unitAmount: number;
  recurring: Recurring | null;
  active?: boolean;
  nickname?: string | null;
  metadata?: Record<string, string>;
}

/** What may change on a price in place: nothing that a past sale depends on. */
export interface PricePatch {
  active?: boolean;
  nickname?: string | null;
  metadata?: Record<string, string>;
}

/** The terms of a replacement; unset fields are copied from the price it replaces. */
export interface PriceReplacement {
  unitAmount: number;
  /** The new billing terms; undefined keeps those of the replaced price. */
  recurring?: Recurring | null;
  nickname?: string | null;
  metadata?: Record<string, string>;
}

export function createPriceRepository(db: Db) {
  const scoped = (scope: Scope, trx: Db) =>
    trx<PriceRow>('prices').where({ merchant_id: scope.merchantId, livemode: scope.livemode });

  async function insert(scope: Scope, input: PriceInput & { replacesId?: string }, trx: Db) {
    const [row] = await trx<PriceRow>('prices')
      .insert({
        id: newId(ID_PREFIX.price),
        merchant_id: scope.merchantId,
        livemode: scope.livemode,
        product_id: input.productId,
        variant_id: input.variantId ?? null,
        active: input.active ?? true,
        unit_amount: input.unitAmount,
        type: input.recurring ? 'recurring' : 'one_time',
        recurring_interval: input.recurring?.interval ?? null,
        recurring_interval_count: input.recurring?.intervalCount ?? null,
        nickname: input.nickname ?? null,
        replaces_id: input.replacesId ?? null,
        metadata: input.metadata ?? {},
      })
      .returning('*');
    return row!;
  }

  return {
    create: (scope: Scope, input: PriceInput, trx: Db = db): Promise<PriceRow> => insert(scope, input, trx),

    async findById(scope: Scope, id: string, trx: Db = db): Promise<PriceRow | undefined> {
      return scoped(scope, trx).where({ id }).first();
    },

    async findByIds(scope: Scope, ids: readonly string[], trx: Db = db): Promise<Map<string, PriceRow>> {
      if (ids.length === 0) return new Map();
      const rows = await scoped(scope, trx).whereIn('id', [...ids]);
      return new Map(rows.map((r) => [r.id, r]));
    },

    existsInOtherMode: (scope: Scope, id: string, trx: Db = db) =>
      existsInOtherMode(trx, 'prices', scope, id),

    async list(
      scope: Scope,
      opts: PageOptions & {
        productId?: string;
        variantId?: string;
        active?: boolean;
        type?: 'one_time' | 'recurring';
      },
      trx: Db = db,
    ): Promise<{ data: PriceRow[]; hasMore: boolean }> {
      const query = scoped(scope, trx);
      if (opts.productId !== undefined) query.where({ product_id: opts.productId });
      if (opts.variantId !== undefined) query.where({ variant_id: opts.variantId });
      if (opts.active !== undefined) query.where({ active: opts.active });
      if (opts.type !== undefined) query.where({ type: opts.type });
      return pageByCreated(query, 'prices', scope, opts);
    },

    async update(scope: Scope, id: string, patch: PricePatch, trx: Db = db): Promise<PriceRow | undefined> {
      const [row] = await scoped(scope, trx)
        .where({ id })
        .update({
          ...(patch.active !== undefined && { active: patch.active }),
          ...(patch.nickname !== undefined && { nickname: patch.nickname }),
          ...(patch.metadata !== undefined && { metadata: patch.metadata }),
          updated_at: trx.fn.now(),
        })
        .returning('*');
      return row;
    },

    /**
     * Replaces a price with a new one carrying a new amount, in one transaction: the old price is
     * archived and points at its successor, and the product's default price and the variant that
     * used it move to the new one. Past sales keep the old price, which never changes.
     */
    async replace(
      scope: Scope,
      id: string,
      change: PriceReplacement,
      trx: Db = db,
    ): Promise<{ old: PriceRow; replacement: PriceRow } | undefined> {
      return inTransaction(trx, async (t) => {
        const old = await scoped(scope, t).where({ id }).forUpdate().first();
        if (!old) return undefined;
        if (old.replaced_by_id !== null) {
          throw new ConflictError(
            `Price '${id}' was already replaced by '${old.replaced_by_id}'; change that price instead`,
            'price_replaced',
            'id',
          );
        }
        const replacement = await insert(
          scope,
          {
            productId: old.product_id,
            variantId: old.variant_id,
            unitAmount: change.unitAmount,
            recurring:
              change.recurring !== undefined
                ? change.recurring
                : old.type === 'recurring'
                  ? { interval: old.recurring_interval!, intervalCount: old.recurring_interval_count! }
                  : null,
            active: true,
            nickname: change.nickname !== undefined ? change.nickname : old.nickname,
            metadata: change.metadata ?? old.metadata,
            replacesId: old.id,
          },
          t,
        );
        const [archived] = await scoped(scope, t)
          .where({ id: old.id })
          .update({ active: false, replaced_by_id: replacement.id, updated_at: t.fn.now() })
          .returning('*');
        await t('products')
          .where({ merchant_id: scope.merchantId, livemode: scope.livemode, default_price_id: old.id })
          .update({ default_price_id: replacement.id, updated_at: t.fn.now() });
        await t('product_variants')
          .where({ merchant_id: scope.merchantId, livemode: scope.livemode, price_id: old.id })
          .update({ price_id: replacement.id, updated_at: t.fn.now() });
        return { old: archived!, replacement };
      });
    },
  };
}

export type PriceRepository = ReturnType<typeof createPriceRepository>;
