import type { Knex } from '../../db/knex';
import type { Scope } from '../../domain/scope';
import type { PageOptions } from '../../db/tenant';
import { createPriceRepository, type Recurring } from '../../db/prices';
import { createProductRepository } from '../../db/products';
import { createVariantRepository } from '../../db/product-variants';
import { InvalidRequestError } from '../../domain/errors';
import { findOr404, findReference, missingReference } from '../lookup';
import { presentPrice } from './price-object';

export interface CreatePriceInput {
  product: string;
  unit_amount: number;
  recurring?: Recurring;
  nickname?: string | null;
  active?: boolean;
  metadata?: Record<string, string>;
}

export interface UpdatePriceInput {
  unit_amount?: number;
  nickname?: string | null;
  active?: boolean;
  metadata?: Record<string, string>;
}

export interface PriceListFilter {
  product?: string;
  variant?: string;
  active?: boolean;
  type?: 'one_time' | 'recurring';
}

/**
 * Prices: what a product (or one of its variants) sells for. The amount and billing terms of a
 * price never change; a new amount replaces the price (decision 0021).
 */
export function createPriceService(deps: { knex: Knex }) {
  const prices = createPriceRepository(deps.knex);
  const products = createProductRepository(deps.knex);
  const variants = createVariantRepository(deps.knex);

  const find = (scope: Scope, id: string) =>
    findOr404(
      'price',
      scope,
      id,
      () => prices.findById(scope, id),
      () => prices.existsInOtherMode(scope, id),
    );

  return {
    async create(scope: Scope, input: CreatePriceInput) {
      const product = await products.findById(scope, input.product);
      if (!product) throw missingReference('product', input.product, 'product');
      const row = await prices.create(scope, {
        productId: product.id,
        unitAmount: input.unit_amount,
        recurring: input.recurring ?? null,
        ...(input.active !== undefined && { active: input.active }),
        ...(input.nickname !== undefined && { nickname: input.nickname }),
        ...(input.metadata !== undefined && { metadata: input.metadata }),
      });
      return presentPrice(row);
    },

    async list(scope: Scope, opts: PageOptions & PriceListFilter) {
      const { product, variant, ...rest } = opts;
      if (product !== undefined)
        await findReference('product', product, 'product', () => products.findById(scope, product));
      if (variant !== undefined)
        await findReference('variant', variant, 'variant', () => variants.findInScope(scope, variant));
      const page = await prices.list(scope, { ...rest, productId: product, variantId: variant });
      return { data: page.data.map(presentPrice), hasMore: page.hasMore };
    },

    retrieve: async (scope: Scope, id: string) => presentPrice(await find(scope, id)),

    /** Nickname, active and metadata change in place; a new unit_amount returns the replacement. */
    async update(scope: Scope, id: string, input: UpdatePriceInput) {
      const price = await find(scope, id);
      if (input.unit_amount !== undefined && input.unit_amount !== price.unit_amount) {
        if (input.active !== undefined)
          throw new InvalidRequestError(
            'active cannot be combined with a new unit_amount: the new price is active and this one is archived',
            { code: 'parameter_invalid', param: 'active' },
          );
        const replaced = await prices.replace(scope, price.id, {
          unitAmount: input.unit_amount,
          ...(input.nickname !== undefined && { nickname: input.nickname }),
          ...(input.metadata !== undefined && { metadata: input.metadata }),
        });
        return presentPrice(replaced!.replacement);
      }
      const row = await prices.update(scope, price.id, {
        ...(input.active !== undefined && { active: input.active }),
        ...(input.nickname !== undefined && { nickname: input.nickname }),
        ...(input.metadata !== undefined && { metadata: input.metadata }),
      });
      return presentPrice(row!);
    },
  };
}

export type PriceService = ReturnType<typeof createPriceService>;
