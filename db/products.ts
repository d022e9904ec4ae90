import type { Db } from './knex';
import type { Scope } from '../domain/scope';
import type { VatRate } from '../domain/vat';
import type { VatTreatment } from '../domain/vat-category';
import { newId, ID_PREFIX } from '../domain/ids';
import { pageByCreated } from './pagination';
import { existsInOtherMode, type PageOptions } from './tenant';

export interface ProductRow extends VatTreatment {
  id: string;
  merchant_id: string;
  livemode: boolean;
  name: string;
  description: string | null;
  images: string[];
  active: boolean;
  vat_rate: VatRate;
  default_price_id: string | null;
  metadata: Record<string, string>;
  created_at: Date;
  updated_at: Date;
  deleted_at: Date | null;
}

export interface ProductInput {
  name: string;
  description?: string | null;
  images?: string[];
  active?: boolean;
  vatRate: VatRate;
  /** Decision 0234; absent: derived from the rate. */
  vat?: VatTreatment;
  metadata?: Record<string, string>;
}

export interface ProductPatch {
  name?: string;
  description?: string | null;
  images?: string[];
  active?: boolean;
  vatRate?: VatRate;
  vat?: VatTreatment;
  defaultPriceId?: string | null;
  metadata?: Record<string, string>;
}

export function createProductRepository(db: Db) {
  const scoped = (scope: Scope, trx: Db) =>
    trx<ProductRow>('products')
      .where({ merchant_id: scope.merchantId, livemode: scope.livemode })
      .whereNull('deleted_at');

  return {
    async create(scope: Scope, input: ProductInput, trx: Db = db): Promise<ProductRow> {
      const [row] = await trx<ProductRow>('products')
        .insert({
          id: newId(ID_PREFIX.product),
          merchant_id: scope.merchantId,
          livemode: scope.livemode,
          name: input.name,
          description: input.description ?? null,
          images: input.images ?? [],
          active: input.active ?? true,
          vat_rate: input.vatRate,
          ...input.vat,
          metadata: input.metadata ?? {},
        })
        .returning('*');
      return row!;
    },

    async findById(scope: Scope, id: string, trx: Db = db): Promise<ProductRow | undefined> {
      return scoped(scope, trx).where({ id }).first();
    },

    /** A product by id alone (not deleted), for its public product page; the row names its scope. */
    async findPublic(id: string, trx: Db = db): Promise<ProductRow | undefined> {
      return trx<ProductRow>('products').where({ id }).whereNull('deleted_at').first();
    },

    /** The products of these ids that exist in the scope. */
    async existingIds(scope: Scope, ids: readonly string[], trx: Db = db): Promise<Set<string>> {
      const rows = await scoped(scope, trx)
        .whereIn('id', [...ids])
        .select<{ id: string }[]>('id');
      return new Set(rows.map((r) => r.id));
    },

    existsInOtherMode: (scope: Scope, id: string, trx: Db = db) =>
      existsInOtherMode(trx, 'products', scope, id, { softDeleted: true }),

    async list(
      scope: Scope,
      opts: PageOptions & { active?: boolean },
      trx: Db = db,
    ): Promise<{ data: ProductRow[]; hasMore: boolean }> {
      const query = scoped(scope, trx);
      if (opts.active !== undefined) query.where({ active: opts.active });
      return pageByCreated(query, 'products', scope, opts);
    },

    async update(
      scope: Scope,
      id: string,
      patch: ProductPatch,
      trx: Db = db,
    ): Promise<ProductRow | undefined> {
      const [row] = await scoped(scope, trx)
        .where({ id })
        .update({
          ...(patch.name !== undefined && { name: patch.name }),
          ...(patch.description !== undefined && { description: patch.description }),
          ...(patch.images !== undefined && { images: patch.images }),
          ...(patch.active !== undefined && { active: patch.active }),
          ...(patch.vatRate !== undefined && { vat_rate: patch.vatRate }),
          ...patch.vat,
          ...(patch.defaultPriceId !== undefined && { default_price_id: patch.defaultPriceId }),
          ...(patch.metadata !== undefined && { metadata: patch.metadata }),
          updated_at: trx.fn.now(),
        })
        .returning('*');
      return row;
    },

    /** Whether any price, active or archived, was ever created for the product. */
    async hasPrices(scope: Scope, id: string, trx: Db = db): Promise<boolean> {
      const row: unknown = await trx('prices')
        .where({ product_id: id, merchant_id: scope.merchantId, livemode: scope.livemode })
        .first('id');
      return row !== undefined;
    },

    /** Soft delete, for products that never had a price (nothing was sold that refers to them). */
    async delete(scope: Scope, id: string, trx: Db = db): Promise<ProductRow | undefined> {
      const [row] = await scoped(scope, trx)
        .where({ id })
        .update({ deleted_at: trx.fn.now(), active: false })
        .returning('*');
      return row;
    },
  };
}

export type ProductRepository = ReturnType<typeof createProductRepository>;
