import Decimal from 'decimal.js';

/**
 * The bounds of a claim's inputs, each with its source (decision 0104). Amounts are whole ISK.
 */
export const CLAIM_LIMITS = {
  /**
   * Final due date and cancellation date fall within this many years of the due date: "CancellationDate
   * MIN >= FinalDueDate; MAX DueDate + 4 years" (IOBWS claims committee minutes 2021-03-23,
   * CLAIMS-DOMAIN.md §1.1), and the final due date is never after the cancellation date.
   */
  yearsAfterDue: 4,
  /** Skil's own: a due date at most this many years ahead (the standard sets none). */
  dueYearsAhead: 4,
  /** Days of a default-charge or discount tier: IOBWS-Claims3.1 `dayAmountItem.day`, 0–99. */
  tierDays: 99,
  /**
   * A default charge (vanskilagjald), at any tier: at most the one collection warning
   * (innheimtuviðvörun) of Regulation 37/2009 art. 6 as amended by 133/2010, 950 ISK. The standard
   * requires default charges "within the rules that apply according to Regulation 37/2009"
   * (IOBWS-Claims3.1 `createClaimDetails`); Skil's claims stay in primary collection.
   */
  defaultCharge: 950,
  /**
   * Skil's own cap on the notice and payment fee (seðilgjald): the standard sets none
   * (`paymentFee` is a number); the fee may only cover the actual cost of the notice (the
   * ministry's recommendation of February 2009, Neytendastofa), and 950 ISK is what the regulation
   * allows for a whole collection letter.
   */
  noticeFee: 950,
} as const;

export interface LimitTier {
  type: 'amount' | 'percentage';
  days: number;
  value: number;
}

export interface LimitTiers {
  first: LimitTier;
  second?: LimitTier | undefined;
}

/** A bound a claim input breaks: the parameter (API name) and why. */
export interface LimitProblem {
  param: string;
  message: string;
}

/** The whole krónur a tier comes to on `base` (percentages half-up, as claim-amount-due.ts rounds). */
function tierIsk(tier: LimitTier, base: number): number {
  if (tier.type === 'amount') return tier.value;
  return new Decimal(base).times(tier.value).div(100).toDecimalPlaces(0, Decimal.ROUND_HALF_UP).toNumber();
}

function tierProblem(param: string, tier: LimitTier): LimitProblem | null {
  if (!Number.isInteger(tier.days) || tier.days < 0 || tier.days > CLAIM_LIMITS.tierDays)
    return {
      param: `${param}.days`,
      message: `must be a whole number of days from 0 to ${CLAIM_LIMITS.tierDays}`,
    };
  const value = new Decimal(tier.value);
  if (tier.type === 'amount' && (!Number.isSafeInteger(tier.value) || tier.value < 0))
    return { param: `${param}.value`, message: 'must be a whole ISK amount of 0 or more' };
  if (tier.type === 'percentage' && (value.lt(0) || value.gt(100) || value.decimalPlaces() > 2))
    return {
      param: `${param}.value`,
      message: 'must be a percentage from 0 to 100 with at most two decimals',
    };
  return null;
}

/**
 * The first bound the claim's money terms break, or null: default-charge and discount tiers well
 * formed, each default charge at most `CLAIM_LIMITS.defaultCharge`, the notice fee at most
 * `CLAIM_LIMITS.noticeFee`, and no discount above the claim amount (a percentage discount is of the
 * total before discount, amount plus notice fee, as the standard computes it).
 */
export function claimTermsProblem(terms: {
  amount: number;
  noticeFee?: number | null | undefined;
  defaultCharges?: LimitTiers | null | undefined;
  discount?: LimitTiers | null | undefined;
}): LimitProblem | null {
  const noticeFee = terms.noticeFee ?? 0;
  if (!Number.isSafeInteger(noticeFee) || noticeFee < 0 || noticeFee > CLAIM_LIMITS.noticeFee)
    return {
      param: 'notice_fee',
      message: `must be a whole ISK amount from 0 to ${CLAIM_LIMITS.noticeFee}`,
    };
  for (const [name, tiers] of [
    ['default_charges', terms.defaultCharges],
    ['discount', terms.discount],
  ] as const) {
    if (!tiers) continue;
    for (const at of ['first', 'second'] as const) {
      const tier = tiers[at];
      if (!tier) continue;
      const param = `${name}.${at}`;
      const shape = tierProblem(param, tier);
      if (shape) return shape;
      if (name === 'default_charges') {
        const isk = tierIsk(tier, terms.amount);
        if (isk > CLAIM_LIMITS.defaultCharge)
          return {
            param: `${param}.value`,
            message: `a default charge may be at most ${CLAIM_LIMITS.defaultCharge} ISK (Regulation 37/2009); this one comes to ${isk} ISK`,
          };
      } else {
        const isk = tierIsk(tier, terms.amount + noticeFee);
        if (isk > terms.amount)
          return {
            param: `${param}.value`,
            message: `a discount may not exceed the claim amount (${terms.amount} ISK); this one comes to ${isk} ISK`,
          };
      }
    }
  }
  return null;
}
