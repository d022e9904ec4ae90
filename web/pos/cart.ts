import type { TillItem } from '../../services/pos/till-catalog';

/**
 * The till's cart lives in the page's address (`?cart=prod_…:var_…:2,prod_…::1`): no server state,
 * every tap on the grid is a plain link, and a reload or the back button shows the same cart. It
 * only names products and quantities; the sale prices them from the catalogue.
 */
export interface CartEntry {
  product: string;
  variant: string | null;
  quantity: number;
}

const ID = /^[a-z]+_[0-9A-Za-z]{1,64}$/;
const MAX_LINES = 50;
const MAX_QTY = 99;

export function parseCart(text: unknown): CartEntry[] {
  if (typeof text !== 'string' || text.length > 4000) return [];
  const out: CartEntry[] = [];
  for (const part of text.split(',').slice(0, MAX_LINES)) {
    const [product = '', variant = '', qty = ''] = part.split(':');
    const quantity = Number(qty);
    if (!ID.test(product) || (variant !== '' && !ID.test(variant))) continue;
    if (!Number.isInteger(quantity) || quantity < 1 || quantity > MAX_QTY) continue;
    out.push({ product, variant: variant || null, quantity });
  }
  return out;
}

export const cartText = (cart: CartEntry[]) =>
  cart.map((e) => `${e.product}:${e.variant ?? ''}:${e.quantity}`).join(',');

const same = (
  a: { product: string; variant: string | null },
  b: { product: string; variant: string | null },
) => a.product === b.product && a.variant === b.variant;

/** The cart with one more of `item` (a new line, or one more on its line). */
export function withItem(cart: CartEntry[], item: { product: string; variant: string | null }): CartEntry[] {
  if (cart.some((e) => same(e, item)))
    return cart.map((e) => (same(e, item) ? { ...e, quantity: Math.min(MAX_QTY, e.quantity + 1) } : e));
  return [...cart, { product: item.product, variant: item.variant, quantity: 1 }];
}

export const withoutLine = (cart: CartEntry[], index: number) => cart.filter((_, i) => i !== index);

/** The cart's lines as the grid prices them (lines no longer for sale are dropped), and the total. */
export function pricedCart(cart: CartEntry[], items: TillItem[]) {
  const lines = cart.flatMap((e) => {
    const item = items.find((i) => same(i, e));
    return item ? [{ ...e, item, amount: item.unit_amount * e.quantity }] : [];
  });
  return { lines, total: lines.reduce((s, l) => s + l.amount, 0) };
}
