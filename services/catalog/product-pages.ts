import type { Knex } from '../../db/knex';
import type { Scope } from '../../domain/scope';
import type { VatRate } from '../../domain/vat';
import type { Locale } from '../../domain/locale';
import type { CheckoutService } from '../checkout';
import type { PosAccess } from '../pos/access';
import { ApiError } from '../../domain/errors';
import { createProductRepository } from '../../db/products';
import { createVariantRepository } from '../../db/product-variants';
import { createPriceRepository } from '../../db/prices';

/** One choice on a product page: the product itself, or one of its variants, at its one-time price. */
export interface ProductPageOption {
  variant: string | null;
  name: string;
  unit_amount: number;
  /** The variant's stock is tracked and none is left: shown, not sold. */
  sold_out: boolean;
}

export interface ProductPage {
  scope: Scope;
  product: { id: string; name: string; description: string | null; vat_rate: VatRate };
  options: ProductPageOption[];
}

/** A buyer may order at most this many of one choice from a product page. */
export const PRODUCT_PAGE_MAX_QUANTITY = 20;

/** At most this many variants on one page; more than a phone screen is useful. */
const PAGE_VARIANTS = 100;

/** The product page's path: the product's id, unguessable (decision 0161), under `/p/`. */
export const productPagePath = (productId: string) => `/p/${productId}`;
export const productPageUrl = (publicBaseUrl: string, productId: string) =>
  `${publicBaseUrl}${productPagePath(productId)}`;

/**
 * Hosted product pages (decision 0161): a public page per product listing its active
 * variants at their one-time prices; the buyer's choice opens a checkout session through the same
 * checkout service payment links use, so the payment is an ordinary checkout payment. A page exists
 * only while the product is active, has a price to sell at, and the merchant's POS is on (spec
 * §2.3: product pages are a POS feature). The product's mode is the page's mode.
 */
export function createProductPageService(deps: {
  knex: Knex;
  checkout: Pick<CheckoutService, 'create'>;
  access: Pick<PosAccess, 'assertEnabled'>;
}) {
  const products = createProductRepository(deps.knex);
  const variants = createVariantRepository(deps.knex);
  const prices = createPriceRepository(deps.knex);

  async function posOn(scope: Scope): Promise<boolean> {
    try {
      await deps.access.assertEnabled(scope);
      return true;
    } catch (err) {
      if (err instanceof ApiError && err.code === 'pos_not_enabled') return false;
      throw err;
    }
  }

  async function find(id: string): Promise<ProductPage | null> {
    const product = await products.findPublic(id);
    if (!product || !product.active) return null;
    const scope = { merchantId: product.merchant_id, livemode: product.livemode };
    if (!(await posOn(scope))) return null;
    const vs = (await variants.list(scope, product.id, { limit: PAGE_VARIANTS, active: true })).data;
    const priceIds = vs.length
      ? vs.flatMap((v) => (v.price_id ? [v.price_id] : []))
      : product.default_price_id
        ? [product.default_price_id]
        : [];
    const byId = await prices.findByIds(scope, priceIds);
    const oneTime = (priceId: string | null) => {
      const price = priceId ? byId.get(priceId) : undefined;
      return price && price.active && price.type === 'one_time' ? price.unit_amount : null;
    };
    const options: ProductPageOption[] = [];
    if (vs.length === 0) {
      const amount = oneTime(product.default_price_id);
      if (amount !== null)
        options.push({ variant: null, name: product.name, unit_amount: amount, sold_out: false });
    }
    for (const v of [...vs].sort((a, b) => a.created_at.getTime() - b.created_at.getTime())) {
      const amount = oneTime(v.price_id);
      if (amount !== null)
        options.push({ variant: v.id, name: v.name, unit_amount: amount, sold_out: v.stock === 0 });
    }
    if (options.length === 0) return null;
    return {
      scope,
      product: {
        id: product.id,
        name: product.name,
        description: product.description,
        vat_rate: product.vat_rate,
      },
      options,
    };
  }

  return {
    find,

    /**
     * Opens a checkout session for the buyer's choice, or null when the page or the choice is not
     * (or no longer) for sale. The session prices the line again from the catalogue.
     */
    async order(
      id: string,
      variant: string | null,
      quantity: number,
      locale: Locale,
    ): Promise<{ sessionId: string } | null> {
      const page = await find(id);
      const option = page?.options.find((o) => o.variant === variant && !o.sold_out);
      if (!page || !option) return null;
      const session = await deps.checkout.create(page.scope, {
        mode: 'payment',
        items: [{ product: page.product.id, ...(variant && { variant }), quantity }],
        save_payment_method: false,
        allow_custom_amount: false,
        locale,
        metadata: { product_page: page.product.id },
      });
      return { sessionId: session.id };
    },
  };
}

export type ProductPageService = ReturnType<typeof createProductPageService>;
