import type { Knex } from '../../db/knex';
import type { Scope } from '../../domain/scope';
import type { PageOptions } from '../../db/tenant';
import type { Recurring } from '../../db/prices';
import type { ProductService } from './products';
import { createVariantRepository, type VariantRow } from '../../db/product-variants';
import { createPriceRepository } from '../../db/prices';
import { findOr404 } from '../lookup';
import { presentDeletedVariant, presentVariant } from './variant-object';

export interface CreateVariantInput {
  name: string;
  unit_amount: number;
  recurring?: Recurring;
  stock?: number | null;
  active?: boolean;
  metadata?: Record<string, string>;
}

export interface UpdateVariantInput {
  name?: string;
  unit_amount?: number;
  stock?: number | null;
  active?: boolean;
  metadata?: Record<string, string>;
}

/**
 * Variants live under their product (decision 0022). Each has its own price, replaced rather than
 * edited when the amount changes, and an optional stock count.
 */
export function createVariantService(deps: { knex: Knex; products: Pick<ProductService, 'find'> }) {
  const variants = createVariantRepository(deps.knex);
  const prices = createPriceRepository(deps.knex);

  const find = async (scope: Scope, productId: string, id: string) => {
    const product = await deps.products.find(scope, productId);
    return findOr404(
      'product variant',
      scope,
      id,
      () => variants.findById(scope, product.id, id),
      () => variants.existsInOtherMode(scope, id),
      'variant',
    );
  };
  const withPrice = async (scope: Scope, row: VariantRow) =>
    presentVariant(row, row.price_id ? await prices.findById(scope, row.price_id) : undefined);

  return {
    async create(scope: Scope, productId: string, input: CreateVariantInput) {
      const product = await deps.products.find(scope, productId);
      const { variant, price } = await variants.create(scope, product.id, {
        name: input.name,
        unitAmount: input.unit_amount,
        recurring: input.recurring ?? null,
        ...(input.stock !== undefined && { stock: input.stock }),
        ...(input.active !== undefined && { active: input.active }),
        ...(input.metadata !== undefined && { metadata: input.metadata }),
      });
      return presentVariant(variant, price);
    },

    /** A page of the product's variants; `url` is the list's own path. */
    async list(scope: Scope, productId: string, opts: PageOptions & { active?: boolean }) {
      const product = await deps.products.find(scope, productId);
      const page = await variants.list(scope, product.id, opts);
      const byId = await prices.findByIds(
        scope,
        page.data.flatMap((v) => (v.price_id ? [v.price_id] : [])),
      );
      return {
        productId: product.id,
        data: page.data.map((v) => presentVariant(v, v.price_id ? byId.get(v.price_id) : undefined)),
        hasMore: page.hasMore,
      };
    },

    retrieve: async (scope: Scope, productId: string, id: string) =>
      withPrice(scope, await find(scope, productId, id)),

    /** A new unit_amount replaces the variant's price; the old one is archived. */
    async update(scope: Scope, productId: string, id: string, input: UpdateVariantInput) {
      const found = await find(scope, productId, id);
      const row = await deps.knex.transaction(async (trx) => {
        if (input.unit_amount !== undefined && found.price_id) {
          const current = await prices.findById(scope, found.price_id, trx);
          if (current && current.unit_amount !== input.unit_amount)
            await prices.replace(scope, found.price_id, { unitAmount: input.unit_amount }, trx);
        }
        return variants.update(
          scope,
          found.product_id,
          found.id,
          {
            ...(input.name !== undefined && { name: input.name }),
            ...(input.stock !== undefined && { stock: input.stock }),
            ...(input.active !== undefined && { active: input.active }),
            ...(input.metadata !== undefined && { metadata: input.metadata }),
          },
          trx,
        );
      });
      return withPrice(scope, row!);
    },

    /** Its price is archived; past sales keep referring to both. */
    async delete(scope: Scope, productId: string, id: string) {
      const found = await find(scope, productId, id);
      await variants.delete(scope, found.product_id, found.id);
      return presentDeletedVariant(found.id);
    },
  };
}

export type VariantService = ReturnType<typeof createVariantService>;
