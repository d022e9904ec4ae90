import { InvalidRequestError } from '../../domain/errors';
import { CLAIM_LIMITS } from '../../domain/claim-limits';

/** The same calendar date `years` later (29 February lands on 1 March). */
export function plusYears(date: string, years: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCFullYear(d.getUTCFullYear() + years);
  return d.toISOString().slice(0, 10);
}

const invalid = (message: string, param: string) =>
  new InvalidRequestError(message, { code: 'parameter_invalid', param });

/** A new claim's due date (gjalddagi): not before `today`, at most `CLAIM_LIMITS.dueYearsAhead` years ahead. */
export function checkDueDate(due: string, today: string): void {
  if (due < today) throw invalid(`due_date must not be in the past (today is ${today})`, 'due_date');
  if (due > plusYears(today, CLAIM_LIMITS.dueYearsAhead))
    throw invalid(`due_date must be at most ${CLAIM_LIMITS.dueYearsAhead} years ahead`, 'due_date');
}

/**
 * Checks the date rules (decision 0104): eindagi on or after gjalddagi and within 4 years of it;
 * cancellation between eindagi and gjalddagi + 4 years. Run on the dates as given (so no date far out
 * reaches the banking-day shift) and again once shifted.
 */
export function checkClaimDates(due: string, finalDue: string, cancellation: string): void {
  const last = plusYears(due, CLAIM_LIMITS.yearsAfterDue);
  if (finalDue < due) throw invalid('final_due_date must be on or after due_date', 'final_due_date');
  if (finalDue > last)
    throw invalid(
      `final_due_date must be at most ${CLAIM_LIMITS.yearsAfterDue} years after due_date`,
      'final_due_date',
    );
  if (cancellation < finalDue || cancellation > last)
    throw invalid(
      `cancellation_date must be on or after final_due_date and at most ${CLAIM_LIMITS.yearsAfterDue} years after due_date`,
      'cancellation_date',
    );
}
