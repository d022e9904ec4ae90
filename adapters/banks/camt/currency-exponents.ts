/**
 * ISO 4217 minor-unit exponents. Banks state amounts in major units with a decimal point; we store
 * integers of the minor unit, so the exponent decides how many decimals a valid amount may carry.
 * Covers the currencies in the public samples plus the common ones; an unknown currency is refused
 * rather than guessed, because guessing 2 decimals for ISK (0) would inflate amounts a hundredfold.
 */
const EXPONENTS: Readonly<Record<string, number>> = {
  // zero decimals
  ISK: 0,
  JPY: 0,
  KRW: 0,
  CLP: 0,
  VND: 0,
  XOF: 0,
  XAF: 0,
  // two decimals
  EUR: 2,
  HUF: 2,
  USD: 2,
  GBP: 2,
  CHF: 2,
  DKK: 2,
  NOK: 2,
  SEK: 2,
  PLN: 2,
  CZK: 2,
  CAD: 2,
  AUD: 2,
  NZD: 2,
  CNY: 2,
  HKD: 2,
  SGD: 2,
  ZAR: 2,
  INR: 2,
  RUB: 2,
  TRY: 2,
  MXN: 2,
  BRL: 2,
  RON: 2,
  BGN: 2,
  // three decimals
  BHD: 3,
  JOD: 3,
  KWD: 3,
  OMR: 3,
  TND: 3,
  LYD: 3,
  IQD: 3,
};

/** The number of decimals a currency's minor unit has (ISK 0, EUR 2, KWD 3); undefined when unknown. */
export function minorUnitExponent(currency: string): number | undefined {
  return EXPONENTS[currency];
}
