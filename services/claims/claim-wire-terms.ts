import type { DayAmountItem } from '../../adapters/banks/claims-api';
import type { ClaimWireTerms } from '../../db/claims';

/**
 * The claim terms as the API names them, and their IOBWS 3.1 wire shapes (ÍST TS 315) as the bank
 * and the claims table hold them. The two directions live side by side so they cannot drift.
 */

export type ReferenceDate = 'due_date' | 'final_due_date';

export interface ClaimTier {
  type: 'amount' | 'percentage';
  days: number;
  value: number;
}

export interface ClaimTiers {
  reference_date?: ReferenceDate | undefined;
  first: ClaimTier;
  second?: ClaimTier | undefined;
}

export interface ClaimInterest {
  reference_date?: ReferenceDate | undefined;
  base?: 'amount' | 'amount_and_default_charge' | undefined;
  day_count?: 'daily' | '360' | 'calendar' | undefined;
  percentage?: number | undefined;
}

export interface ClaimTermsInput {
  default_charges?: ClaimTiers | undefined;
  default_interest?: ClaimInterest | undefined;
  discount?: ClaimTiers | undefined;
  allow_partial_payment?: boolean | undefined;
}

const REF = { due_date: 'DueDate', final_due_date: 'FinalDueDate' } as const;
const REF_BACK = { DueDate: 'due_date', FinalDueDate: 'final_due_date' } as const;
const BASE = { amount: 'Amount', amount_and_default_charge: 'AmountAndDefaultCharge' } as const;
const BASE_BACK = { Amount: 'amount', AmountAndDefaultCharge: 'amount_and_default_charge' } as const;
const COUNT = { daily: 'Daily', '360': '360', calendar: 'Calendar' } as const;
const COUNT_BACK = { Daily: 'daily', '360': '360', Calendar: 'calendar' } as const;

const tierOut = (t: ClaimTier): DayAmountItem => ({
  chargeType: t.type === 'amount' ? 'Amount' : 'Percentage',
  day: t.days,
  value: t.value,
});
const tierBack = (t: DayAmountItem | undefined) =>
  t && {
    type: t.chargeType === 'Amount' ? ('amount' as const) : ('percentage' as const),
    days: t.day ?? 0,
    value: t.value ?? 0,
  };
const tiersOut = (t: ClaimTiers) => ({
  ...(t.reference_date && { referenceDate: REF[t.reference_date] }),
  first: tierOut(t.first),
  ...(t.second && { second: tierOut(t.second) }),
});

/** The terms of a new claim in the bank's wire shape. */
export function toWireTerms(input: ClaimTermsInput): ClaimWireTerms {
  const interest = input.default_interest;
  return {
    ...(input.default_charges && { defaultCharge: tiersOut(input.default_charges) }),
    ...(interest && {
      defaultInterest: {
        ...(interest.reference_date && { referenceDate: REF[interest.reference_date] }),
        ...(interest.base && { baseAmountType: BASE[interest.base] }),
        ...(interest.day_count && { baseTimeType: COUNT[interest.day_count] }),
        ...(interest.percentage !== undefined && { percentage: interest.percentage }),
      },
    }),
    ...(input.discount && { discount: tiersOut(input.discount) }),
    ...(input.allow_partial_payment !== undefined && {
      isPartialPaymentAllowed: input.allow_partial_payment,
    }),
  };
}

/** Default charges or discount tiers as the API shows them. */
export function tiersFromWire(t: ClaimWireTerms['discount'] | ClaimWireTerms['defaultCharge']) {
  return t
    ? {
        reference_date: t.referenceDate ? REF_BACK[t.referenceDate] : null,
        first: tierBack(t.first) ?? null,
        second: tierBack(t.second) ?? null,
      }
    : null;
}

/** The default-interest rule as the API shows it. */
export function interestFromWire(i: ClaimWireTerms['defaultInterest']) {
  return i
    ? {
        reference_date: i.referenceDate ? REF_BACK[i.referenceDate] : null,
        base: i.baseAmountType ? BASE_BACK[i.baseAmountType] : null,
        day_count: i.baseTimeType ? COUNT_BACK[i.baseTimeType] : null,
        percentage: i.percentage ?? null,
      }
    : null;
}
