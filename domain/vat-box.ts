import type { VatRate } from './vat';
import type { VatCategory } from './vat-category';

export type { VatCategory };

/**
 * Where a sale's amount goes on the VAT return RSK 10.01 (decision 0238): A sales at 24 % without
 * VAT, B sales at 11 % without VAT, C zero-rated sales; exempt sales and sales outside the scope of
 * VAT are no box of the return and are shown beside it.
 */
export type VatBox = 'A' | 'B' | 'C' | 'out_of_scope';

export const VAT_BOXES: readonly VatBox[] = ['A', 'B', 'C', 'out_of_scope'];

/**
 * The one place a line is mapped to a box. A line at 0 % with no category is zero-rated when the
 * seller is registered for VAT (it chose 0 % for a zero-rated supply) and outside the return when
 * it is not (an unregistered seller charges no VAT on anything: decision 0138).
 */
export function vatBox(
  line: { vat_rate: VatRate; vat_category?: VatCategory | null },
  seller: { registered: boolean },
): VatBox {
  if (line.vat_category === 'E' || line.vat_category === 'O') return 'out_of_scope';
  if (line.vat_rate === 24) return 'A';
  if (line.vat_rate === 11) return 'B';
  if (line.vat_category === 'Z') return 'C';
  return seller.registered ? 'C' : 'out_of_scope';
}
