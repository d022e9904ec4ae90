import type { Scope } from '../../domain/scope';
import type { VatRate } from '../../domain/vat';
import type { TillDeps } from './till-deps';
import { priceLine, type PricedLine } from '../../domain/line-pricing';
import type { ProductRow } from '../../db/products';

/** One button of the till's product grid: a product, or one of its variants, with its price. */
export interface TillItem {
  product: string;
  /** The product's own name (`name` adds the variant's). */
  product_name: string;
  variant: string | null;
  name: string;
  unit_amount: number;
  vat_rate: VatRate;
}

/** At most this many products on the grid; a till sells from a short list. */
const GRID_PRODUCTS = 100;

/**
 * What a till can sell: the active products with a one-time price, each active variant its own
 * button. The sale itself prices the lines again from the catalogue (services/pos/sale-lines.ts), so the
 * grid only shows; it never decides a price.
 */
export function createTillCatalog(deps: Pick<TillDeps, 'catalog' | 'access'>) {
  const { products, variants, prices } = deps.catalog;
  return {
    async items(scope: Scope): Promise<TillItem[]> {
      await deps.access.assertEnabled(scope);
      const page = await products.list(scope, { limit: GRID_PRODUCTS, active: true });
      const ordered = [...page.data].sort((a, b) => a.name.localeCompare(b.name, 'is'));
      const perProduct = await Promise.all(
        ordered.map(async (p) => ({
          product: p,
          variants: (await variants.list(scope, p.id, { limit: GRID_PRODUCTS, active: true })).data,
        })),
      );
      const priceIds = perProduct.flatMap(({ product, variants: vs }) => [
        ...(product.default_price_id ? [product.default_price_id] : []),
        ...vs.flatMap((v) => (v.price_id ? [v.price_id] : [])),
      ]);
      const byId = await prices.findByIds(scope, priceIds);
      const oneTime = (id: string | null) => {
        const price = id ? byId.get(id) : undefined;
        return price && price.type === 'one_time' ? price.unit_amount : null;
      };
      const out: TillItem[] = [];
      // One unit of each, priced as a sale prices it, so a button shows what the sale will charge.
      const item = (product: ProductRow, line: PricedLine): TillItem => ({
        product: product.id,
        product_name: product.name,
        vat_rate: line.vat_rate,
        variant: line.variant_id,
        name: line.description,
        unit_amount: line.unit_amount,
      });
      for (const { product, variants: vs } of perProduct) {
        if (vs.length === 0) {
          const amount = oneTime(product.default_price_id);
          if (amount !== null) out.push(item(product, priceLine({ product, unitAmount: amount }, 1)));
          continue;
        }
        for (const v of [...vs].sort((a, b) => a.created_at.getTime() - b.created_at.getTime())) {
          const amount = oneTime(v.price_id);
          if (amount !== null)
            out.push(item(product, priceLine({ product, variant: v, unitAmount: amount }, 1)));
        }
      }
      return out;
    },
  };
}

export type TillCatalog = ReturnType<typeof createTillCatalog>;
