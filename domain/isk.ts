import type { Locale } from './locale';

/** How `formatIsk` marks a negative amount. */
export interface IskFormat {
  /**
   * `'hyphen'` (the default): an ASCII hyphen-minus on the number, `-1.234 kr.` and `ISK -1,234`, as
   * Intl.NumberFormat writes it; the merchant dashboard, the finance pages and the simulated bank's
   * payer page show amounts so. `'typographic'`: a minus sign (U+2212) before the whole amount,
   * `−1.234 kr.` and `−ISK 1,234`, as receipts, the hosted checkout, the customer portal and the
   * till print them.
   */
  negative?: 'hyphen' | 'typographic';
}

/**
 * Whole ISK as each language writes it: `1.234 kr.` in Icelandic, `ISK 1,234` in English. A bigint
 * is grouped exactly whatever its size, as the finance pages' totals need.
 */
export function formatIsk(amount: number | bigint, locale: Locale, format: IskFormat = {}): string {
  const negative = amount < 0;
  const magnitude = typeof amount === 'bigint' ? (negative ? -amount : amount) : Math.abs(amount);
  const digits = String(magnitude).replace(/\B(?=(\d{3})+(?!\d))/g, locale === 'is' ? '.' : ',');
  if (format.negative === 'typographic') {
    const sign = negative ? '−' : '';
    return locale === 'is' ? `${sign}${digits} kr.` : `${sign}ISK ${digits}`;
  }
  const number = negative ? `-${digits}` : digits;
  return locale === 'is' ? `${number} kr.` : `ISK ${number}`;
}
