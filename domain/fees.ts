import Decimal from 'decimal.js';

/** The payment channels whose fees spec §1 lists for cards. */
export type PaymentChannel = 'online' | 'pos';

/** Fee rates of spec §1: online card payments 1.5 %, card payments through the POS 0.8 %. */
export const CARD_FEE_RATE: Record<PaymentChannel, string> = { online: '0.015', pos: '0.008' };

/** The service fee on a captured card amount: decimal arithmetic, rounded half up to whole krónur once. */
export function cardFee(amount: number, channel: PaymentChannel): number {
  if (!Number.isSafeInteger(amount) || amount < 0)
    throw new RangeError('amount must be a whole ISK amount ≥ 0');
  return new Decimal(amount).mul(CARD_FEE_RATE[channel]).toDecimalPlaces(0, Decimal.ROUND_HALF_UP).toNumber();
}

/** The claim fee (krafa): 0.8 % of the claim, at least 25 and at most 250 ISK, rounded half up. */
export const CLAIM_FEE = { rate: '0.008', min: 25, max: 250 } as const;

export function claimFee(amount: number): number {
  if (!Number.isSafeInteger(amount) || amount < 0)
    throw new RangeError('amount must be a whole ISK amount ≥ 0');
  const fee = new Decimal(amount).mul(CLAIM_FEE.rate).toDecimalPlaces(0, Decimal.ROUND_HALF_UP).toNumber();
  return Math.min(CLAIM_FEE.max, Math.max(CLAIM_FEE.min, fee));
}
