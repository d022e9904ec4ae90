import type { Knex } from '../../db/knex';
import type { Scope } from '../../domain/scope';
import type { PageOptions } from '../../db/tenant';
import type { Recurring } from '../../db/prices';
import type { VatRate } from '../../domain/vat';
import { createProductRepository } from '../../db/products';
import { createPriceRepository } from '../../db/prices';
import { ConflictError, InvalidRequestError } from '../../domain/errors';
import { findOr404, findReference } from '../lookup';
import { presentDeletedProduct, presentProduct } from './product-object';
import { checkedVatTreatment, mergedVatTreatment, type VatTreatmentInput } from '../vat-treatment';
import { vatTreatmentOf } from '../../domain/vat-category';

/** A price made with its product (`default_price_data`). */
export interface DefaultPriceData {
  unit_amount: number;
  recurring?: Recurring;
}

export interface CreateProductInput extends VatTreatmentInput {
  name: string;
  vat_rate: VatRate;
  description?: string | null;
  images?: string[];
  active?: boolean;
  default_price_data?: DefaultPriceData;
  metadata?: Record<string, string>;
}

export interface UpdateProductInput extends VatTreatmentInput {
  name?: string;
  description?: string | null;
  images?: string[];
  active?: boolean;
  vat_rate?: VatRate;
  default_price?: string | null;
  default_price_data?: DefaultPriceData;
  metadata?: Record<string, string>;
}

/** Products (spec §2.4): one-off or recurring pricing, a default price, optional variants. */
export function createProductService(deps: { knex: Knex }) {
  const products = createProductRepository(deps.knex);
  const prices = createPriceRepository(deps.knex);

  const find = (scope: Scope, id: string) =>
    findOr404(
      'product',
      scope,
      id,
      () => products.findById(scope, id),
      () => products.existsInOtherMode(scope, id),
    );

  return {
    /** The product row, or 404: variants live under their product. */
    find,

    async create(scope: Scope, input: CreateProductInput) {
      const vat = checkedVatTreatment(input.vat_rate, input);
      const row = await deps.knex.transaction(async (trx) => {
        const product = await products.create(
          scope,
          {
            name: input.name,
            vatRate: input.vat_rate,
            vat,
            ...(input.description !== undefined && { description: input.description }),
            ...(input.images !== undefined && { images: input.images }),
            ...(input.active !== undefined && { active: input.active }),
            ...(input.metadata !== undefined && { metadata: input.metadata }),
          },
          trx,
        );
        if (!input.default_price_data) return product;
        const price = await prices.create(
          scope,
          {
            productId: product.id,
            unitAmount: input.default_price_data.unit_amount,
            recurring: input.default_price_data.recurring ?? null,
          },
          trx,
        );
        return (await products.update(scope, product.id, { defaultPriceId: price.id }, trx))!;
      });
      return presentProduct(row);
    },

    async list(scope: Scope, opts: PageOptions & { active?: boolean }) {
      const page = await products.list(scope, opts);
      return { data: page.data.map(presentProduct), hasMore: page.hasMore };
    },

    retrieve: async (scope: Scope, id: string) => presentProduct(await find(scope, id)),

    /** `default_price_data` replaces the default price: the old one is archived and points to it. */
    async update(scope: Scope, id: string, input: UpdateProductInput) {
      const product = await find(scope, id);
      // The rate and category are checked together, as they will stand (decision 0234).
      const vat = checkedVatTreatment(
        input.vat_rate ?? product.vat_rate,
        mergedVatTreatment(vatTreatmentOf(product), input),
      );
      if (input.default_price !== undefined && input.default_price_data !== undefined)
        throw new InvalidRequestError('Send default_price or default_price_data, not both', {
          code: 'parameter_invalid',
          param: 'default_price_data',
        });
      if (typeof input.default_price === 'string') {
        const id = input.default_price;
        const price = await findReference('price', id, 'default_price', () => prices.findById(scope, id));
        if (price.product_id !== product.id || price.variant_id !== null || !price.active)
          throw new InvalidRequestError(
            `'${input.default_price}' is not an active price of product '${product.id}' (variant prices excluded)`,
            { code: 'parameter_invalid', param: 'default_price' },
          );
      }
      const row = await deps.knex.transaction(async (trx) => {
        let defaultPriceId = input.default_price;
        const data = input.default_price_data;
        if (data) {
          const change = { unitAmount: data.unit_amount, recurring: data.recurring ?? null };
          defaultPriceId = product.default_price_id
            ? (await prices.replace(scope, product.default_price_id, change, trx))!.replacement.id
            : (await prices.create(scope, { productId: product.id, ...change }, trx)).id;
        }
        return products.update(
          scope,
          product.id,
          {
            ...(input.name !== undefined && { name: input.name }),
            ...(input.description !== undefined && { description: input.description }),
            ...(input.images !== undefined && { images: input.images }),
            ...(input.active !== undefined && { active: input.active }),
            ...(input.vat_rate !== undefined && { vatRate: input.vat_rate }),
            vat,
            ...(defaultPriceId !== undefined && { defaultPriceId }),
            ...(input.metadata !== undefined && { metadata: input.metadata }),
          },
          trx,
        );
      });
      return presentProduct(row!);
    },

    /** Only a product that never had a price is deleted; past or future sales refer to prices. */
    async delete(scope: Scope, id: string) {
      const product = await find(scope, id);
      if (await products.hasPrices(scope, product.id))
        throw new ConflictError(
          'This product has prices, which past or future sales refer to; archive it with active=false instead',
          'product_has_prices',
          'id',
        );
      await products.delete(scope, product.id);
      return presentDeletedProduct(product.id);
    },
  };
}

export type ProductService = ReturnType<typeof createProductService>;
