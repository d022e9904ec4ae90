import {
  claimAmountDue,
  rbDefaultInterestCode,
  yearFraction,
  type AmountDue,
  type ClaimTerms,
} from '../../domain/claim-amount-due';
import { constantRateTable } from '../../domain/default-interest-rates';

// Every expected figure below is computed by hand in the comment above the case, not by the code.

type Expect = Partial<Omit<AmountDue, 'date'>>;
interface Case {
  name: string;
  terms: ClaimTerms;
  date: string;
  expect: Expect;
}

const plain = { principal: 10_000, dueDate: '2026-03-02', finalDueDate: '2026-03-16', noticeFee: 250 };

const cases: Case[] = [
  {
    // Paid before the due date, no discount: 10 000 + 250 notice fee = 10 250.
    name: 'before the due date: principal and notice fee',
    terms: plain,
    date: '2026-02-20',
    expect: { total: 10_250, defaultInterest: 0, inDefault: false },
  },
  {
    // Paid on the eindagi (Mon 16 Mar 2026, a banking day): not in default. 10 000 + 250 = 10 250.
    name: 'on the final due date: still no default',
    terms: { ...plain, defaultInterest: rbDefaultInterestCode('4', 18) },
    date: '2026-03-16',
    expect: { total: 10_250, defaultInterest: 0, inDefault: false },
  },
  {
    // RB code 4: from gjalddagi, actual/360. Due 2 Mar → paid 1 Apr = 29 + 1 = 30 days.
    // 100 000 × 18 % × 30/360 = 1 500. Total 100 000 + 1 500 = 101 500.
    name: 'interest from the due date, actual/360',
    terms: {
      principal: 100_000,
      dueDate: '2026-03-02',
      finalDueDate: '2026-03-16',
      defaultInterest: {
        referenceDate: 'DueDate',
        dayCount: 'actual/360',
        basis: 'principal',
        percentage: 18,
      },
    },
    date: '2026-04-01',
    expect: { defaultInterest: 1_500, interestDays: 30, total: 101_500, inDefault: true },
  },
  {
    // RB code 6: from eindagi, actual/360. 16 Mar → 1 Apr = 15 + 1 = 16 days.
    // 100 000 × 18 % × 16/360 = 800. Total 100 800.
    name: 'interest from the final due date, actual/360',
    terms: {
      principal: 100_000,
      dueDate: '2026-03-02',
      finalDueDate: '2026-03-16',
      defaultInterest: rbDefaultInterestCode('6', 18)!,
    },
    date: '2026-04-01',
    expect: { defaultInterest: 800, interestDays: 16, total: 100_800 },
  },
  {
    // RB blank/7/8: from gjalddagi, 30E/360. Due 31 Mar → paid 31 Aug: both 31sts count as 30,
    // days = 30 × (8 − 3) + (30 − 30) = 150 (actual would be 153).
    // 50 000 × 15 % × 150/360 = 3 125. Total 53 125.
    name: 'interest 30E/360 (RB "360/360")',
    terms: {
      principal: 50_000,
      dueDate: '2026-03-31',
      finalDueDate: '2026-04-14',
      defaultInterest: rbDefaultInterestCode('', 15)!,
    },
    date: '2026-08-31',
    expect: { defaultInterest: 3_125, interestDays: 150, total: 53_125 },
  },
  {
    // actual/365: due 4 May → 18 Jun = 27 (rest of May) + 18 = 45 days.
    // 100 000 × 12 % × 45/365 = 540 000/365 = 1 479.45… → 1 479. Total 101 479.
    name: 'interest actual/365, rounded down',
    terms: {
      principal: 100_000,
      dueDate: '2026-05-04',
      finalDueDate: '2026-05-18',
      defaultInterest: {
        referenceDate: 'DueDate',
        dayCount: 'actual/365',
        basis: 'principal',
        percentage: 12,
      },
    },
    date: '2026-06-18',
    expect: { defaultInterest: 1_479, interestDays: 45, total: 101_479 },
  },
  {
    // Year boundary, actual/360: due 15 Dec 2026 → paid 20 Jan 2027 = 16 (rest of Dec) + 20 = 36 days.
    // 80 000 × 17.25 % × 36/360 = 80 000 × 0.01725 = 1 380. Total 81 380.
    name: 'interest across a year boundary, actual/360',
    terms: {
      principal: 80_000,
      dueDate: '2026-12-15',
      finalDueDate: '2026-12-29',
      defaultInterest: rbDefaultInterestCode('4', 17.25)!,
    },
    date: '2027-01-20',
    expect: { defaultInterest: 1_380, interestDays: 36, total: 81_380 },
  },
  {
    // Year boundary into a leap year, actual/actual (IOBWS "Calendar"): due 1 Dec 2027 → paid
    // 15 Feb 2028. 2027: 1 Dec → 1 Jan = 31 days of 365; 2028: 1 Jan → 15 Feb = 31 + 14 = 45 days of 366.
    // 200 000 × 15 % × (31/365 + 45/366) = 30 000 × (0.084931… + 0.122950…) = 6 236.47 → 6 236.
    name: 'interest across a year boundary into a leap year, actual/actual',
    terms: {
      principal: 200_000,
      dueDate: '2027-12-01',
      finalDueDate: '2027-12-15',
      defaultInterest: {
        referenceDate: 'DueDate',
        dayCount: 'actual/actual',
        basis: 'principal',
        percentage: 15,
      },
    },
    date: '2028-02-15',
    expect: { defaultInterest: 6_236, interestDays: 76, total: 206_236 },
  },
  {
    // Default charge tiers from eindagi (1 Oct 2026): first 950 after 0 days, second 1 300 after 15.
    // Paid 11 Oct = 10 days late → first tier: 950. Interest on principal + charge (AmountAndDefaultCharge),
    // from eindagi, actual/360: (30 000 + 950) × 18 % × 10/360 = 30 950 × 0.005 = 154.75 → 155.
    // Total 30 000 + 950 + 155 = 31 105.
    name: 'first default charge, interest on principal and charge',
    terms: {
      principal: 30_000,
      dueDate: '2026-09-15',
      finalDueDate: '2026-10-01',
      defaultCharge: {
        referenceDate: 'FinalDueDate',
        tiers: [
          { day: 0, type: 'amount', value: 950 },
          { day: 15, type: 'amount', value: 1_300 },
        ],
      },
      defaultInterest: {
        referenceDate: 'FinalDueDate',
        dayCount: 'actual/360',
        basis: 'principal_and_default_charge',
        percentage: 18,
      },
    },
    date: '2026-10-11',
    expect: { defaultCharge: 950, defaultInterest: 155, total: 31_105 },
  },
  {
    // Same claim paid 21 Oct = 20 days late → second tier replaces the first: 1 300, no interest rule.
    // Other default costs 500 now due too. Total 30 000 + 1 300 + 500 = 31 800.
    name: 'second default charge replaces the first; other default costs once in default',
    terms: {
      principal: 30_000,
      dueDate: '2026-09-15',
      finalDueDate: '2026-10-01',
      otherDefaultCosts: 500,
      defaultCharge: {
        referenceDate: 'FinalDueDate',
        tiers: [
          { day: 0, type: 'amount', value: 950 },
          { day: 15, type: 'amount', value: 1_300 },
        ],
      },
    },
    date: '2026-10-21',
    expect: { defaultCharge: 1_300, otherDefaultCosts: 500, defaultInterest: 0, total: 31_800 },
  },
  {
    // Discount from gjalddagi 16 Nov 2026: 2 % if paid ≥ 10 days early (by 6 Nov), 300 ISK if by 16 Nov.
    // Paid 2 Nov: both apply, the larger wins: 2 % of (40 000 + 200) = 804. Total 40 200 − 804 = 39 396.
    name: 'discount before the first discount date',
    terms: {
      principal: 40_000,
      dueDate: '2026-11-16',
      finalDueDate: '2026-11-30',
      noticeFee: 200,
      discount: {
        referenceDate: 'DueDate',
        tiers: [
          { day: 10, type: 'percentage', value: 2 },
          { day: 0, type: 'amount', value: 300 },
        ],
      },
    },
    date: '2026-11-02',
    expect: { discount: 804, total: 39_396 },
  },
  {
    // Same claim paid 7 Nov: past the 2 % date (6 Nov), before the due date → 300. Total 39 900.
    // Paid on the discount date itself (6 Nov) would still get 804: "on or before".
    name: 'discount between the discount dates',
    terms: {
      principal: 40_000,
      dueDate: '2026-11-16',
      finalDueDate: '2026-11-30',
      noticeFee: 200,
      discount: {
        referenceDate: 'DueDate',
        tiers: [
          { day: 10, type: 'percentage', value: 2 },
          { day: 0, type: 'amount', value: 300 },
        ],
      },
    },
    date: '2026-11-07',
    expect: { discount: 300, total: 39_900 },
  },
  {
    // Eindagi Sat 14 Mar 2026 (not a banking day): grace to Mon 16 Mar. Paid Mon 16 Mar: no default.
    name: 'eindagi on a Saturday: paying the next Monday is on time',
    terms: { ...plain, finalDueDate: '2026-03-14', defaultInterest: rbDefaultInterestCode('4', 18) },
    date: '2026-03-16',
    expect: { inDefault: false, defaultInterest: 0, total: 10_250 },
  },
  {
    // Paid Tue 17 Mar: in default, interest from gjalddagi 2 Mar, actual/360: 15 days.
    // 10 000 × 18 % × 15/360 = 75. Total 10 000 + 250 + 75 = 10 325.
    name: 'eindagi on a Saturday: paying the Tuesday is late, interest from the due date',
    terms: { ...plain, finalDueDate: '2026-03-14', defaultInterest: rbDefaultInterestCode('4', 18) },
    date: '2026-03-17',
    expect: { inDefault: true, defaultInterest: 75, interestDays: 15, total: 10_325 },
  },
  {
    // Exactly half a króna rounds up: 1 000 × 18 % × 1/360 = 0.5 → 1. (eindagi = gjalddagi 2 Mar, paid 3 Mar)
    name: 'half a króna of interest rounds up',
    terms: {
      principal: 1_000,
      dueDate: '2026-03-02',
      finalDueDate: '2026-03-02',
      defaultInterest: rbDefaultInterestCode('4', 18)!,
    },
    date: '2026-03-03',
    expect: { defaultInterest: 1, total: 1_001 },
  },
  {
    // Statutory rate when the rule names none (IOBWS: Central Bank maximum), RB code 3 style daily:
    // the rate is per day. 20 000 × 0.05 % × 10 days (eindagi 16 Mar → 26 Mar) = 100. Total 20 100.
    name: 'daily interest at the statutory rate',
    terms: {
      principal: 20_000,
      dueDate: '2026-03-02',
      finalDueDate: '2026-03-16',
      defaultInterest: { referenceDate: 'FinalDueDate', dayCount: 'daily', basis: 'principal' },
    },
    date: '2026-03-26',
    expect: { defaultInterest: 100, interestDays: 10, total: 20_100 },
  },
  {
    // Percentage default charge: 2.5 % of 30 010 = 750.25 → 750; code 1 = no interest.
    name: 'percentage default charge, no interest (RB code 1)',
    terms: {
      principal: 30_010,
      dueDate: '2026-09-15',
      finalDueDate: '2026-10-01',
      defaultCharge: { referenceDate: 'DueDate', tiers: [{ day: 5, type: 'percentage', value: 2.5 }] },
      defaultInterest: rbDefaultInterestCode('1'),
    },
    date: '2026-10-05',
    expect: { defaultCharge: 750, defaultInterest: 0, total: 30_760 },
  },
  {
    // After a partial payment on 20 Jan 2027 interest had been paid through that date; remaining
    // principal 40 000, paid again 30 Jan: 10 days × 40 000 × 18 % / 360 = 200. Total 40 200.
    name: 'interest after a partial payment starts at the date interest was paid through',
    terms: {
      principal: 40_000,
      dueDate: '2026-12-15',
      finalDueDate: '2026-12-29',
      defaultInterest: rbDefaultInterestCode('4', 18)!,
      interestPaidThrough: '2027-01-20',
    },
    date: '2027-01-30',
    expect: { defaultInterest: 200, interestDays: 10, total: 40_200 },
  },
];

describe('claimAmountDue: hand-computed table', () => {
  test.each(cases)('$name', ({ terms, date, expect: want }) => {
    const due = claimAmountDue(terms, date, { statutoryRates: constantRateTable(0.05) });
    expect(due).toMatchObject(want);
    // The parts always add up to the total.
    expect(
      due.principal +
        due.noticeFee +
        due.otherCosts +
        due.otherDefaultCosts +
        due.defaultCharge +
        due.defaultInterest -
        due.discount,
    ).toBe(due.total);
  });
});

describe('claimAmountDue: guards', () => {
  test('refuses a fractional principal, a bad date and a missing rate', () => {
    expect(() => claimAmountDue({ ...plain, principal: 10.5 }, '2026-03-01')).toThrow(RangeError);
    expect(() => claimAmountDue(plain, '2026-02-30')).toThrow(RangeError);
    expect(() =>
      claimAmountDue(
        {
          ...plain,
          defaultInterest: { referenceDate: 'DueDate', dayCount: 'actual/360', basis: 'principal' },
        },
        '2026-05-01',
      ),
    ).toThrow(/statutory/);
  });

  test('year fraction of an empty or reversed period is zero', () => {
    expect(yearFraction('2026-03-02', '2026-03-02', 'actual/actual').fraction.toNumber()).toBe(0);
    expect(yearFraction('2026-03-05', '2026-03-02', '30E/360').days).toBe(0);
  });
});
