import type { ClaimTerms, DayAmountTier, DefaultInterestRule } from '../../domain/claim-amount-due';
import type { CreateClaimDetails, DayAmountItem, DefaultInterest } from './claims-api';

/**
 * IOBWS claim fields → the domain's ClaimTerms, so the bank's view and Skil's view of "amount due"
 * come from one function. `Daily`/`360`/`Calendar` map to daily, actual/360 and actual/actual;
 * a missing `defaultInterest` means no default interest; a missing percentage means the statutory
 * rate. The notice fee is the paperless one unless the claim is printed (decision 0071).
 */

function tier(item: DayAmountItem | undefined): DayAmountTier[] {
  if (!item || item.value === undefined) return [];
  return [
    {
      day: item.day ?? 0,
      type: item.chargeType === 'Percentage' ? 'percentage' : 'amount',
      value: item.value,
    },
  ];
}

/** The domain interest rule of an IOBWS `defaultInterest`. */
export function interestRuleOf(wire: DefaultInterest | undefined): DefaultInterestRule | null {
  if (!wire) return null;
  const dayCount =
    wire.baseTimeType === 'Daily'
      ? 'daily'
      : wire.baseTimeType === 'Calendar'
        ? 'actual/actual'
        : 'actual/360';
  return {
    referenceDate: wire.referenceDate ?? 'DueDate',
    dayCount,
    basis: wire.baseAmountType === 'AmountAndDefaultCharge' ? 'principal_and_default_charge' : 'principal',
    percentage: wire.percentage,
  };
}

/** Terms of a claim as issued (create shape or the bank's stored claim). */
export function claimTermsOf(
  claim: Pick<
    CreateClaimDetails,
    | 'amount'
    | 'claimKey'
    | 'finalDueDate'
    | 'paymentFee'
    | 'otherCostsAmount'
    | 'otherDefaultCostsAmount'
    | 'defaultCharge'
    | 'defaultInterest'
    | 'discount'
  >,
  opts: { printed?: boolean } = {},
): ClaimTerms {
  return {
    principal: claim.amount,
    dueDate: claim.claimKey.dueDate,
    finalDueDate: claim.finalDueDate,
    noticeFee: opts.printed ? claim.paymentFee?.printingFee : claim.paymentFee?.paperlessFee,
    otherCosts: claim.otherCostsAmount,
    otherDefaultCosts: claim.otherDefaultCostsAmount,
    defaultCharge: claim.defaultCharge && {
      referenceDate: claim.defaultCharge.referenceDate ?? 'FinalDueDate',
      tiers: [...tier(claim.defaultCharge.first), ...tier(claim.defaultCharge.second)],
    },
    defaultInterest: interestRuleOf(claim.defaultInterest),
    discount: claim.discount && {
      referenceDate: claim.discount.referenceDate ?? 'DueDate',
      tiers: [...tier(claim.discount.first), ...tier(claim.discount.second)],
    },
  };
}
