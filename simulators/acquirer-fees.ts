import Decimal from 'decimal.js';

/**
 * The simulated card acquirer's documented test fee (docs/guides/testing.md, "The simulated card acquirer"; decision 0113): a
 * percentage of the captured amount, rounded half up to whole krónur, plus a fixed amount per
 * capture — the shape of a real acquirer's tariff (a commission and a per-transaction fee), with
 * figures chosen for tests, not any acquirer's prices. Refunds carry no fee and return none.
 */
export const SIMULATED_ACQUIRER_FEE = { rate: '0.003', perCapture: 4 } as const;

/** The simulated acquirer's fee on a captured amount in whole ISK. */
export function simulatedAcquirerFee(amount: number): number {
  if (!Number.isSafeInteger(amount) || amount <= 0)
    throw new RangeError('amount must be a whole ISK amount > 0');
  const commission = new Decimal(amount)
    .mul(SIMULATED_ACQUIRER_FEE.rate)
    .toDecimalPlaces(0, Decimal.ROUND_HALF_UP)
    .toNumber();
  return commission + SIMULATED_ACQUIRER_FEE.perCapture;
}
