import { claimDatesFor, claimTermsRuleOf, DEFAULT_CLAIM_TERMS } from '../../domain/checkout-claims';

/** The merchant's claim terms rule (decision 0065): dates hand-computed from the Icelandic calendar. */

test('the default rule: due in 14 days, final due the same day, cancelled 90 days later', () => {
  // 2027-01-04 (Mon) + 14 = 2027-01-18 (Mon); + 90 = 2027-04-18 (Sun) → 2027-04-19 (Mon).
  expect(claimDatesFor('2027-01-04')).toEqual({
    dueDate: '2027-01-18',
    finalDueDate: '2027-01-18',
    cancellationDate: '2027-04-19',
  });
});

test('each date moves to the next banking day: 31 December, New Year and a weekend are closed', () => {
  // 2026-12-17 + 14 = 2026-12-31 (closed) → 2027-01-01 (holiday, Fri) → 2027-01-04 (Mon).
  // final due + 3 = 2027-01-07 (Thu); cancellation + 100 = 2027-04-17 (Sat) → 2027-04-19 (Mon).
  expect(
    claimDatesFor('2026-12-17', {
      days_until_due: 14,
      days_until_final_due: 3,
      days_until_cancellation: 100,
    }),
  ).toEqual({ dueDate: '2027-01-04', finalDueDate: '2027-01-07', cancellationDate: '2027-04-19' });
});

test('Easter: Maundy Thursday to Easter Monday are closed', () => {
  // 2027 Easter Sunday is 28 March: 25 (Thu), 26 (Fri), 29 (Mon) are holidays.
  expect(
    claimDatesFor('2027-03-18', { days_until_due: 7, days_until_final_due: 0, days_until_cancellation: 0 }),
  ).toEqual({ dueDate: '2027-03-30', finalDueDate: '2027-03-30', cancellationDate: '2027-03-30' });
});

test('a stored rule is completed with the defaults; an unreadable one falls back to them', () => {
  expect(claimTermsRuleOf({ days_until_due: 7 })).toEqual({ ...DEFAULT_CLAIM_TERMS, days_until_due: 7 });
  expect(claimTermsRuleOf({})).toEqual(DEFAULT_CLAIM_TERMS);
  expect(claimTermsRuleOf(null)).toEqual(DEFAULT_CLAIM_TERMS);
  expect(claimTermsRuleOf({ days_until_due: -1 })).toEqual(DEFAULT_CLAIM_TERMS);
});
