import { nextBankingDay } from './banking-days';

/**
 * The terms of a krafa chosen at checkout (decision 0063): due (gjalddagi) 14 days after the
 * purchase, final due date (eindagi) the same day, cancelled (niðurfellingardagur) 90 days after
 * that; each on a banking day.
 */
export const CHECKOUT_CLAIM_TERMS = { dueDays: 14, cancelAfterDays: 90 } as const;

const plusDays = (date: string, days: number) =>
  new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);

/** The claim's dates for a purchase made on `today` (YYYY-MM-DD). */
export function checkoutClaimDates(today: string): {
  dueDate: string;
  finalDueDate: string;
  cancellationDate: string;
} {
  const dueDate = nextBankingDay(plusDays(today, CHECKOUT_CLAIM_TERMS.dueDays));
  return {
    dueDate,
    finalDueDate: dueDate,
    cancellationDate: nextBankingDay(plusDays(dueDate, CHECKOUT_CLAIM_TERMS.cancelAfterDays)),
  };
}
