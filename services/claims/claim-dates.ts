import { InvalidRequestError } from '../../domain/errors';

/** The same calendar date `years` later (29 February lands on 1 March). */
export function plusYears(date: string, years: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCFullYear(d.getUTCFullYear() + years);
  return d.toISOString().slice(0, 10);
}

/** Checks the date rules: eindagi on or after gjalddagi; cancellation between eindagi and gjalddagi + 4 years. */
export function checkClaimDates(due: string, finalDue: string, cancellation: string): void {
  if (finalDue < due)
    throw new InvalidRequestError('final_due_date must be on or after due_date', {
      code: 'parameter_invalid',
      param: 'final_due_date',
    });
  if (cancellation < finalDue || cancellation > plusYears(due, 4))
    throw new InvalidRequestError(
      'cancellation_date must be on or after final_due_date and at most 4 years after due_date',
      { code: 'parameter_invalid', param: 'cancellation_date' },
    );
}
