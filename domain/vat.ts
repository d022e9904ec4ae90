import Decimal from 'decimal.js';

/** The Icelandic VAT rates a line item may carry (spec §2.1 and §8): 0, 11 or 24 percent. */
export const VAT_RATES = [0, 11, 24] as const;
export type VatRate = (typeof VAT_RATES)[number];

/** Whether a number is one of the VAT rates. */
export function isVatRate(value: number): value is VatRate {
  return (VAT_RATES as readonly number[]).includes(value);
}

/** Rounds a non-negative decimal to whole krónur, half up (architecture, "Money"). */
export function roundKronur(value: Decimal): number {
  return value.toDecimalPlaces(0, Decimal.ROUND_HALF_UP).toNumber();
}

/**
 * The VAT contained in a VAT-inclusive ISK amount: gross × rate / (100 + rate), rounded half up to
 * whole krónur once.
 */
export function vatOf(gross: number, rate: VatRate): number {
  if (!Number.isSafeInteger(gross) || gross < 0) throw new RangeError(`gross must be a whole ISK amount ≥ 0`);
  return roundKronur(new Decimal(gross).mul(rate).div(100 + rate));
}
