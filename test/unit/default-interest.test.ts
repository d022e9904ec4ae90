import { claimAmountDue, rbDefaultInterestCode, type ClaimTerms } from '../../domain/claim-amount-due';
import { addMonths } from '../../domain/day-count';
import { accrueDefaultInterest } from '../../domain/default-interest';
import { constantRateTable } from '../../domain/default-interest-rates';
import { FIXTURE_RATES } from '../fixtures/default-interest/fixture-rates';

/**
 * Default interest as Act 38/2001 computes it (decision 0209): each day at that day's rate,
 * interest added to the principal every twelve months (art. 12), a consumer's agreed rate capped
 * at the statutory one. Every expected figure is worked by hand in the comment above it; the
 * rates are the invented FIXTURE_RATES (10 % from 2024, 18 % from Jan 2026, 12 % from Mar 2026,
 * 9 % from Jul 2026; business one point higher), not the Central Bank's.
 */

const statutoryRule = { referenceDate: 'DueDate', dayCount: 'actual/360', basis: 'principal' } as const;

// Due Sun 15 Feb 2026, eindagi Mon 2 Mar 2026, paid Tue 17 Mar 2026: in default, interest from
// the due date. 360 000 ISK under actual/360 is 1 000 ISK per percent-year-day ÷ 100, so each day
// at r % costs 1 000 × r / 100 ISK. The rate changes on 1 Mar (18 % → 12 %):
// 15 Feb → 1 Mar = 14 days (February 2026 has 28), 1 Mar → 17 Mar = 16 days; 30 days in all.
const midChange: ClaimTerms = {
  principal: 360_000,
  dueDate: '2026-02-15',
  finalDueDate: '2026-03-02',
  defaultInterest: statutoryRule,
};
const paid = '2026-03-17';

describe('a rate change in the middle of the period', () => {
  test('each day bears its own statutory rate (consumer)', () => {
    // 1 000 × 18 % × 14 + 1 000 × 12 % × 16 = 2 520 + 1 920 = 4 440 (one rate, 18 %, would be 5 400).
    const due = claimAmountDue(midChange, paid, { statutoryRates: FIXTURE_RATES });
    expect(due).toMatchObject({ inDefault: true, defaultInterest: 4_440, interestDays: 30, total: 364_440 });
  });

  test('the business rate between businesses', () => {
    // 1 000 × 19 % × 14 + 1 000 × 13 % × 16 = 2 660 + 2 080 = 4 740.
    const due = claimAmountDue(midChange, paid, { statutoryRates: FIXTURE_RATES, payer: 'business' });
    expect(due.defaultInterest).toBe(4_740);
  });

  test("a consumer's agreed 15 % is capped day by day at the statutory rate", () => {
    // min(15, 18) = 15 for 14 days, min(15, 12) = 12 for 16 days:
    // 1 000 × 15 % × 14 + 1 000 × 12 % × 16 = 2 100 + 1 920 = 4 020.
    const terms = { ...midChange, defaultInterest: { ...statutoryRule, percentage: 15 } };
    expect(
      claimAmountDue(terms, paid, { statutoryRates: FIXTURE_RATES, payer: 'consumer' }).defaultInterest,
    ).toBe(4_020);
    // A business owes the 15 % it agreed to: 1 000 × 15 % × 30 = 4 500; so does a payer of unknown
    // kind (the bank computes the claim's percentage as the claimant set it), with or without a table.
    expect(
      claimAmountDue(terms, paid, { statutoryRates: FIXTURE_RATES, payer: 'business' }).defaultInterest,
    ).toBe(4_500);
    expect(claimAmountDue(terms, paid).defaultInterest).toBe(4_500);
  });

  test('an agreed rate below the statutory one applies as agreed', () => {
    // 10 % is below both 18 % and 12 %: 1 000 × 10 % × 30 = 3 000.
    const terms = { ...midChange, defaultInterest: { ...statutoryRule, percentage: 10 } };
    expect(
      claimAmountDue(terms, paid, { statutoryRates: FIXTURE_RATES, payer: 'consumer' }).defaultInterest,
    ).toBe(3_000);
  });
});

describe('twelve-month capitalisation (art. 12)', () => {
  test('exactly twelve months: nothing is added to the principal yet', () => {
    // 10 Jun 2024 → 10 Jun 2025 = 365 days (no 29 Feb in between), 10 % all along, actual/360:
    // 360 000 × 10 % × 365/360 = 36 500. The anniversary is the payment date itself: no capitalisation.
    const r = accrueDefaultInterest({
      principal: 360_000,
      from: '2024-06-10',
      to: '2025-06-10',
      dayCount: 'actual/360',
      rates: FIXTURE_RATES,
    });
    expect(r.exact.toNumber()).toBe(36_500);
    expect(r.capitalisations).toBe(0);
    expect(r.days).toBe(365);
  });

  test('one day past twelve months: the first year’s interest bears interest', () => {
    // As above, then 36 500 joins the principal on 10 Jun 2025: 396 500 × 10 % × 1/360 = 110.1388…
    // 36 500 + 110.1388… = 36 610.1388… → 36 610 (simple interest would be 36 600).
    const r = accrueDefaultInterest({
      principal: 360_000,
      from: '2024-06-10',
      to: '2025-06-11',
      dayCount: 'actual/360',
      rates: FIXTURE_RATES,
    });
    expect(r.exact.toDecimalPlaces(4).toNumber()).toBe(36_610.1389);
    expect(r.capitalisations).toBe(1);
  });

  test('25 months: two capitalisations and a rate change on the second anniversary', () => {
    // RB blank code: from the due date, 30E/360, so every twelve months is exactly one year.
    // Due Mon 1 Jan 2024, eindagi Mon 15 Jan 2024, paid 1 Feb 2026; 100 000 ISK.
    // 1 Jan 2024 → 1 Jan 2025 at 10 %: 10 000; principal becomes 110 000.
    // 1 Jan 2025 → 1 Jan 2026 at 10 %: 11 000; principal becomes 121 000.
    // 1 Jan 2026 → 1 Feb 2026 at 18 % (30 days = 1/12 year): 121 000 × 18 % / 12 = 1 815.
    // Interest 10 000 + 11 000 + 1 815 = 22 815; total 122 815.
    const terms: ClaimTerms = {
      principal: 100_000,
      dueDate: '2024-01-01',
      finalDueDate: '2024-01-15',
      defaultInterest: rbDefaultInterestCode('')!,
    };
    const due = claimAmountDue(terms, '2026-02-01', { statutoryRates: FIXTURE_RATES });
    expect(due).toMatchObject({ defaultInterest: 22_815, interestDays: 750, total: 122_815 });
  });

  test('a year with 29 February counts 366 days between anniversaries', () => {
    // 1 Mar 2027 → 1 Mar 2028 = 366 days (29 Feb 2028 inside), 10 %, actual/360, 360 000 ISK:
    // 1 000 × 10 % × 366 = 36 600, added to the principal on 1 Mar 2028; then one day on
    // 396 600: 396 600 × 10 % / 360 = 110.1666…; 36 710.1666… → 36 710.
    const r = accrueDefaultInterest({
      principal: 360_000,
      from: '2027-03-01',
      to: '2028-03-02',
      dayCount: 'actual/360',
      rates: constantRateTable(10),
    });
    expect(r.exact.toDecimalPlaces(0, 4).toNumber()).toBe(36_710);
    expect(r.capitalisations).toBe(1);
  });

  test('interest from 29 February: the anniversary is 28 February, actual/actual', () => {
    // From 29 Feb 2028, the first anniversary is 28 Feb 2029 (2029 has no 29 Feb).
    // 29 Feb 2028 → 1 Jan 2029 = 307 days of 366; 1 Jan → 28 Feb 2029 = 58 days of 365.
    // 100 000 × 10 % × (307/366 + 58/365) = 10 000 × 133 283/133 590 = 9 977.0192…
    // Principal 109 977.0192… from 28 Feb 2029; 28 Feb → 1 Mar 2029 = 1 day of 365:
    // 109 977.0192… × 10 % / 365 = 30.1307…; 9 977.0192… + 30.1307… = 10 007.1499… → 10 007.
    const r = accrueDefaultInterest({
      principal: 100_000,
      from: '2028-02-29',
      to: '2029-03-01',
      dayCount: 'actual/actual',
      rates: constantRateTable(10),
    });
    expect(r.exact.toDecimalPlaces(2).toNumber()).toBe(10_007.15);
    expect(r.capitalisations).toBe(1);
  });

  test('twelve months on from a month end or a leap day lands on the month’s last day', () => {
    expect(addMonths('2026-01-31', 1)).toBe('2026-02-28');
    expect(addMonths('2028-01-31', 1)).toBe('2028-02-29');
    expect(addMonths('2028-02-29', 12)).toBe('2029-02-28');
    expect(addMonths('2028-02-29', 48)).toBe('2032-02-29');
    expect(addMonths('2026-12-15', 12)).toBe('2027-12-15');
  });
});

describe('the rate table refuses what it cannot answer', () => {
  test('a day before the first published rate', () => {
    expect(() =>
      claimAmountDue({ ...midChange, dueDate: '2023-12-20', finalDueDate: '2024-01-03' }, paid, {
        statutoryRates: FIXTURE_RATES,
      }),
    ).toThrow(/no statutory default-interest rate is known for 2023-12-20/);
  });

  test('an unsorted table, a negative rate, an empty table', () => {
    const terms = midChange;
    const unsorted = [FIXTURE_RATES[1]!, FIXTURE_RATES[0]!];
    expect(() => claimAmountDue(terms, paid, { statutoryRates: unsorted })).toThrow(/ascending/);
    expect(() =>
      claimAmountDue(terms, paid, { statutoryRates: [{ from: '2020-01-01', consumer: -1, business: 1 }] }),
    ).toThrow(/0–100/);
    expect(() => claimAmountDue(terms, paid, { statutoryRates: [] })).toThrow(/empty/);
  });

  test("a consumer's agreed rate cannot be capped without the table", () => {
    const terms = { ...midChange, defaultInterest: { ...statutoryRule, percentage: 15 } };
    expect(() => claimAmountDue(terms, paid, { payer: 'consumer' })).toThrow(/capped/);
  });
});
