import { z } from 'zod';
import { nextBankingDay } from './banking-days';

/**
 * The merchant's rule for the kröfur Skil issues on its behalf at checkout and for subscription
 * renewals (decisions 0063, 0064, 0065): due (gjalddagi) `days_until_due` days after the purchase or
 * renewal, final due date (eindagi) `days_until_final_due` days after that, cancelled
 * (niðurfellingardagur) `days_until_cancellation` days after the final due date; each moved to the
 * next banking day. Named after Stripe's `days_until_due`.
 */
export interface ClaimTermsRule {
  days_until_due: number;
  days_until_final_due: number;
  days_until_cancellation: number;
}

/** Defaults for a merchant that set nothing: due in 14 days, final due the same day, cancelled 90 days later. */
export const DEFAULT_CLAIM_TERMS: ClaimTermsRule = {
  days_until_due: 14,
  days_until_final_due: 0,
  days_until_cancellation: 90,
};

/**
 * Limits keep every rule inside the standard's window: the cancellation date must fall within four
 * years of the due date (CLAIMS-DOMAIN.md §1), and 365 + 1080 days plus banking-day shifts stays
 * well inside 1,460.
 */
export const ClaimTermsPatch = z
  .object({
    days_until_due: z.number().int().min(0).max(365),
    days_until_final_due: z.number().int().min(0).max(365),
    days_until_cancellation: z.number().int().min(0).max(1080),
  })
  .partial()
  .strict();

export type ClaimTermsPatch = z.output<typeof ClaimTermsPatch>;

/** The rule stored on a merchant (jsonb, possibly partial or missing), with defaults filled in. */
export function claimTermsRuleOf(stored: unknown): ClaimTermsRule {
  const parsed = ClaimTermsPatch.safeParse(stored ?? {});
  return { ...DEFAULT_CLAIM_TERMS, ...(parsed.success ? parsed.data : {}) };
}

const plusDays = (date: string, days: number) =>
  new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);

/** The claim's dates for a purchase or renewal on `today` (YYYY-MM-DD) under `rule`. */
export function claimDatesFor(
  today: string,
  rule: ClaimTermsRule = DEFAULT_CLAIM_TERMS,
): { dueDate: string; finalDueDate: string; cancellationDate: string } {
  const dueDate = nextBankingDay(plusDays(today, rule.days_until_due));
  const finalDueDate = nextBankingDay(plusDays(dueDate, rule.days_until_final_due));
  return {
    dueDate,
    finalDueDate,
    cancellationDate: nextBankingDay(plusDays(finalDueDate, rule.days_until_cancellation)),
  };
}

/** The dates under the default rule (what a merchant that set no rule gets). */
export function checkoutClaimDates(today: string) {
  return claimDatesFor(today, DEFAULT_CLAIM_TERMS);
}
