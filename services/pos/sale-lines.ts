import type { Scope } from '../../domain/scope';
import type { VatRate } from '../../domain/vat';
import type { VariantRow } from '../../db/product-variants';
import { InvalidRequestError } from '../../domain/errors';
import { priceLine, type LineSource } from '../../domain/line-pricing';
import { missingReference } from '../lookup';
import { checkedVatTreatment, type VatTreatmentInput } from '../vat-treatment';
import { conflictingVatLine, VAT_CONFLICT_MESSAGE } from '../../domain/vat-category';
import type { TillDeps } from './till-deps';

export type SaleLineInput =
  | { product: string; variant?: string | undefined; quantity: number; discount_amount?: number | undefined }
  | ({
      description: string;
      unit_amount: number;
      vat_rate: VatRate;
      quantity: number;
      discount_amount?: number | undefined;
    } & VatTreatmentInput);

/**
 * A sale's lines priced from the catalogue (a product's default price or a variant's one-time price),
 * or given ad hoc. The till's grid only shows prices; this is where a sale's price is decided.
 */
export function createSaleLines(deps: Pick<TillDeps, 'catalog'>) {
  const { products, variants, prices } = deps.catalog;
  return async function priceSaleLines(scope: Scope, lines: SaleLineInput[]) {
    const priced = await Promise.all(
      lines.map(async (line, i) => {
        const discount = line.discount_amount ?? 0;
        let source: LineSource;
        if ('product' in line) {
          const product = await products.findById(scope, line.product);
          if (!product || product.deleted_at || !product.active)
            throw missingReference('product', line.product, `lines.${i}.product`);
          let priceId = product.default_price_id;
          let variant: VariantRow | undefined;
          if (line.variant !== undefined) {
            variant = await variants.findById(scope, product.id, line.variant);
            if (!variant || variant.deleted_at || !variant.active)
              throw missingReference('variant', line.variant, `lines.${i}.variant`);
            priceId = variant.price_id;
          }
          const price = priceId ? await prices.findById(scope, priceId) : undefined;
          if (!price || price.type !== 'one_time')
            throw new InvalidRequestError('This product has no one-time price to sell it at', {
              code: 'parameter_invalid',
              param: `lines.${i}.product`,
            });
          source = { product, variant, unitAmount: price.unit_amount };
        } else {
          source = {
            description: line.description,
            unitAmount: line.unit_amount,
            vatRate: line.vat_rate,
            vat: checkedVatTreatment(line.vat_rate, line, `lines.${i}.`),
          };
        }
        const priced = priceLine(source, line.quantity, discount);
        if (!Number.isSafeInteger(priced.gross) || discount > priced.gross)
          throw new InvalidRequestError('A line discount cannot exceed the line', {
            code: 'parameter_invalid',
            param: `lines.${i}.discount_amount`,
          });
        return {
          product_id: priced.product_id,
          variant_id: priced.variant_id,
          description: priced.description,
          unit_amount: priced.unit_amount,
          vat_rate: priced.vat_rate,
          vat_category: priced.vat_category,
          vat_exemption_reason: priced.vat_exemption_reason,
          vat_exemption_reason_code: priced.vat_exemption_reason_code,
          position: i,
          quantity: priced.quantity,
          discount_amount: priced.discount_amount,
          amount: priced.amount,
        };
      }),
    );
    // A sale invoiced to a business must fit one invoice: one kind of VAT line (decision 0234).
    const conflict = conflictingVatLine(priced.map((l) => l.vat_category));
    if (conflict >= 0)
      throw new InvalidRequestError(VAT_CONFLICT_MESSAGE, {
        code: 'parameter_invalid',
        param: `lines.${conflict}.vat_category`,
      });
    return priced;
  };
}
