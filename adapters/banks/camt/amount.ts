import { minorUnitExponent } from './currency-exponents';

/** Why a decimal amount string was refused; the parser turns it into a typed error with context. */
export type AmountProblem = 'syntax' | 'unknown_currency' | 'too_many_decimals';

export type AmountResult = { ok: true; minor: bigint } | { ok: false; problem: AmountProblem };

// XSD ActiveOrHistoricCurrencyAndAmount: fractionDigits 5, totalDigits 18, always non-negative.
const DECIMAL = /^(\d{1,18})(?:\.(\d{1,5}))?$/;

/**
 * Converts an ISO 20022 decimal amount ("10830.05") into an exact integer of the currency's minor
 * unit (1083005n for EUR) by string manipulation: floating point never touches money. Trailing zeros
 * beyond the exponent are accepted ("100.00" ISK = 100n); non-zero digits beyond it are refused.
 */
export function parseMinorAmount(text: string, currency: string): AmountResult {
  const exponent = minorUnitExponent(currency);
  if (exponent === undefined) return { ok: false, problem: 'unknown_currency' };
  const match = DECIMAL.exec(text.trim());
  if (match === null) return { ok: false, problem: 'syntax' };
  const whole = match[1]!;
  const fraction = match[2] ?? '';
  const significant = fraction.replace(/0+$/, '');
  if (significant.length > exponent) return { ok: false, problem: 'too_many_decimals' };
  return { ok: true, minor: BigInt(whole + significant.padEnd(exponent, '0')) };
}

/** Formats minor units back to the bank's decimal notation, for error messages and reports. */
export function formatMinorAmount(minor: bigint, currency: string): string {
  const exponent = minorUnitExponent(currency) ?? 2;
  const negative = minor < 0n;
  const digits = (negative ? -minor : minor).toString().padStart(exponent + 1, '0');
  const whole = digits.slice(0, digits.length - exponent);
  const fraction = digits.slice(digits.length - exponent);
  return `${negative ? '-' : ''}${whole}${exponent > 0 ? `.${fraction}` : ''}`;
}
