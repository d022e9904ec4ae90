import type { VatRate } from './vat';
import { vatTreatmentOf, type VatTreatment } from './vat-category';

/**
 * One line priced from the catalogue, the same way wherever something is sold: hosted checkout, the
 * till's sale and the till's product grid. Integer ISK in and out; nothing is rounded, because a
 * VAT-inclusive unit price times a whole quantity is already whole krónur.
 */

/** A catalogue line: the product, the variant chosen (decision 0022) and the price it sells at. */
export interface CatalogueLineSource {
  product: { id: string; name: string; vat_rate: VatRate } & Partial<VatTreatment>;
  variant?: { id: string; name: string } | null | undefined;
  /** VAT-inclusive price per unit: the variant's price, or the product's default price. */
  unitAmount: number;
}

/** A line the seller describes and prices by hand, with no product behind it. */
export interface AdHocLineSource {
  description: string;
  unitAmount: number;
  vatRate: VatRate;
  /** Its VAT category and exemption (decision 0234); absent: derived from the rate. */
  vat?: VatTreatment;
}

export type LineSource = CatalogueLineSource | AdHocLineSource;

export interface PricedLine extends VatTreatment {
  product_id: string | null;
  variant_id: string | null;
  /** The product's name, then the variant's after a dash ("Kaffi — Stór"); or the ad hoc text. */
  description: string;
  unit_amount: number;
  vat_rate: VatRate;
  quantity: number;
  /** Unit amount × quantity, before the line's discount. */
  gross: number;
  discount_amount: number;
  /** What the line costs: gross less its discount. */
  amount: number;
}

/** Prices one line: its description, unit amount and VAT rate, unit amount × quantity less its discount. */
export function priceLine(source: LineSource, quantity: number, discountAmount = 0): PricedLine {
  const gross = source.unitAmount * quantity;
  const named =
    'product' in source
      ? {
          product_id: source.product.id,
          variant_id: source.variant?.id ?? null,
          description: source.variant
            ? `${source.product.name} — ${source.variant.name}`
            : source.product.name,
          vat_rate: source.product.vat_rate,
          ...vatTreatmentOf(source.product),
        }
      : {
          product_id: null,
          variant_id: null,
          description: source.description,
          vat_rate: source.vatRate,
          ...vatTreatmentOf(source.vat),
        };
  return {
    ...named,
    unit_amount: source.unitAmount,
    quantity,
    gross,
    discount_amount: discountAmount,
    amount: gross - discountAmount,
  };
}
