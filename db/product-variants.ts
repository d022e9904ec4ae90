import type { Db } from './knex';
import type { Scope } from '../domain/scope';
import { newId, ID_PREFIX } from '../domain/ids';
import { pageByCreated } from './pagination';
import { createPriceRepository, type PriceRow, type Recurring } from './prices';
import { existsInOtherMode, inTransaction, type PageOptions } from './tenant';

export interface VariantRow {
  id: string;
  merchant_id: string;
  livemode: boolean;
  product_id: string;
  name: string;
  price_id: string | null;
  stock: number | null;
  active: boolean;
  metadata: Record<string, string>;
  created_at: Date;
  updated_at: Date;
  deleted_at: Date | null;
}

export interface VariantInput {
  name: string;
  unitAmount: number;
  recurring: Recurring | null;
  stock?: number | null;
  active?: boolean;
  metadata?: Record<string, string>;
}

export interface VariantPatch {
  name?: string;
  stock?: number | null;
  active?: boolean;
  metadata?: Record<string, string>;
}

/** A product's variants (a named choice such as a size), each with its own price and stock count. */
export function createVariantRepository(db: Db) {
  const prices = createPriceRepository(db);
  const scoped = (scope: Scope, productId: string, trx: Db) =>
    trx<VariantRow>('product_variants')
      .where({ merchant_id: scope.merchantId, livemode: scope.livemode, product_id: productId })
      .whereNull('deleted_at');

  return {
    /** Creates the variant and its price together. */
    async create(
      scope: Scope,
      productId: string,
      input: VariantInput,
      trx: Db = db,
    ): Promise<{ variant: VariantRow; price: PriceRow }> {
      return inTransaction(trx, async (t) => {
        const [inserted] = await t<VariantRow>('product_variants')
          .insert({
            id: newId(ID_PREFIX.productVariant),
            merchant_id: scope.merchantId,
            livemode: scope.livemode,
            product_id: productId,
            name: input.name,
            stock: input.stock ?? null,
            active: input.active ?? true,
            metadata: input.metadata ?? {},
          })
          .returning('*');
        const price = await prices.create(
          scope,
          { productId, variantId: inserted!.id, unitAmount: input.unitAmount, recurring: input.recurring },
          t,
        );
        const [variant] = await t<VariantRow>('product_variants')
          .where({ id: inserted!.id })
          .update({ price_id: price.id })
          .returning('*');
        return { variant: variant!, price };
      });
    },

    async findById(scope: Scope, productId: string, id: string, trx: Db = db) {
      return scoped(scope, productId, trx).where({ id }).first();
    },

    existsInOtherMode: (scope: Scope, id: string, trx: Db = db) =>
      existsInOtherMode(trx, 'product_variants', scope, id, { softDeleted: true }),

    async list(
      scope: Scope,
      productId: string,
      opts: PageOptions & { active?: boolean },
      trx: Db = db,
    ): Promise<{ data: VariantRow[]; hasMore: boolean }> {
      const query = scoped(scope, productId, trx);
      if (opts.active !== undefined) query.where({ active: opts.active });
      return pageByCreated(query, 'product_variants', scope, opts);
    },

    async update(scope: Scope, productId: string, id: string, patch: VariantPatch, trx: Db = db) {
      const [row] = await scoped(scope, productId, trx)
        .where({ id })
        .update({
          ...(patch.name !== undefined && { name: patch.name }),
          ...(patch.stock !== undefined && { stock: patch.stock }),
          ...(patch.active !== undefined && { active: patch.active }),
          ...(patch.metadata !== undefined && { metadata: patch.metadata }),
          updated_at: trx.fn.now(),
        })
        .returning('*');
      return row;
    },

    /**
     * Takes `quantity` units from stock if that many are left, atomically (one conditional UPDATE),
     * for checkout. An untracked stock (null) always succeeds. Returns false when short.
     */
    async takeStock(scope: Scope, id: string, quantity: number, trx: Db = db): Promise<boolean> {
      const rows = await trx('product_variants')
        .where({ id, merchant_id: scope.merchantId, livemode: scope.livemode })
        .whereNull('deleted_at')
        .andWhere((q) => q.whereNull('stock').orWhere('stock', '>=', quantity))
        .update({ stock: trx.raw('case when stock is null then null else stock - ? end', [quantity]) })
        .returning('id');
      return rows.length === 1;
    },

    /** Puts units taken by `takeStock` back (a sale whose payment never came); untracked stock stays null. */
    async returnStock(scope: Scope, id: string, quantity: number, trx: Db = db): Promise<void> {
      await trx('product_variants')
        .where({ id, merchant_id: scope.merchantId, livemode: scope.livemode })
        .whereNotNull('stock')
        .increment('stock', quantity);
    },

    /** Soft delete; the variant's price is archived so nothing new is sold at it. */
    async delete(scope: Scope, productId: string, id: string, trx: Db = db) {
      return inTransaction(trx, async (t) => {
        const [row] = await scoped(scope, productId, t)
          .where({ id })
          .update({ deleted_at: t.fn.now(), active: false })
          .returning('*');
        if (row?.price_id) await prices.update(scope, row.price_id, { active: false }, t);
        return row;
      });
    },
  };
}

export type VariantRepository = ReturnType<typeof createVariantRepository>;
