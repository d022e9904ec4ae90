import { z } from 'zod';
import { VAT_CATEGORIES } from '../domain/vat-category';

/** The VAT category fields as products, checkout items and till lines present them (decision 0234). */
export const VatTreatmentSchema = z.object({
  vat_category: z
    .enum(VAT_CATEGORIES)
    .nullable()
    .describe(
      'S standard (11 or 24 %), Z zero rated, E exempt, O outside the scope of VAT; null: derived from the rate (Z at 0, S otherwise; O when the merchant has no VAT number)',
    ),
  vat_exemption_reason: z.string().nullable().describe('Why the line is exempt (E) or outside the scope (O)'),
  vat_exemption_reason_code: z.string().nullable().describe('A VATEX code for the exemption'),
});
