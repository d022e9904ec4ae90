import { claimTermsOf } from '../../adapters/banks/claim-terms';
import { claimAmountDue, type AmountDue } from '../../domain/claim-amount-due';
import type { DefaultInterestRateTable } from '../../domain/default-interest-rates';
import { toCreateClaimDetails } from '../../db/claims';
import type { CollectionClaimRow } from '../../db/collection';

/**
 * What the payer of an overdue krafa owes on a date: the krafa's own terms (principal, notice fee,
 * default charge, default interest by its rule and the environment's rate table) plus the
 * collection costs taken so far as the krafa's "other default costs" — the very fields Skil sends
 * the bank (decision 0246), so the bank's figure and Skil's come from one function.
 *
 * The interest is computed as the bank computes it, without the payer's kind: a krafa naming no
 * percentage bears the table's consumer column (decision 0209; decision 0244 says why the business
 * column is not applied yet).
 */
export function amountOwed(
  claim: CollectionClaimRow,
  date: string,
  rates: DefaultInterestRateTable,
  costs: number = claim.collection_costs,
): AmountDue {
  const terms = claimTermsOf({ ...toCreateClaimDetails(claim), otherDefaultCostsAmount: costs });
  return claimAmountDue(terms, date, { statutoryRates: rates });
}

/** The costs of a breakdown: everything the payer owes beyond principal and interest. */
export function costsOf(due: AmountDue): number {
  return due.noticeFee + due.otherCosts + due.otherDefaultCosts + due.defaultCharge;
}
