import fc from 'fast-check';
import Decimal from 'decimal.js';
import { claimAmountDue, yearFraction, type DayCount } from '../../domain/claim-amount-due';
import { accrueDefaultInterest } from '../../domain/default-interest';
import type { DefaultInterestRateTable, PayerKind } from '../../domain/default-interest-rates';

/**
 * The production computation (split at rate changes and anniversaries, one day-count fraction
 * per piece) against a deliberately simple reference written here from the rule in decision 0209:
 * walk the period one calendar day at a time, look up that day's rate by scanning the table,
 * weigh the day by its own share of a year under the day count, and add the interest of the last
 * twelve months to the principal on the morning of each anniversary. The reference shares no code
 * with domain/ (its own calendar, month arithmetic and day weights).
 */

const DAY_MS = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const ms = (date: string) => Date.UTC(+date.slice(0, 4), +date.slice(5, 7) - 1, +date.slice(8, 10));
const isLeap = (y: number) => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
const monthLength = (y: number, m: number) =>
  [31, isLeap(y) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1]!;

/** `from` plus 12·k months, a missing day becoming the month's last. */
function anniversary(from: string, k: number): string {
  const y = +from.slice(0, 4) + k;
  const m = +from.slice(5, 7);
  const d = Math.min(+from.slice(8, 10), monthLength(y, m));
  return `${y}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
}

/** The share of a year (or, for `daily`, of a day's rate) that the day starting on `day` counts for. */
function dayWeight(day: string, dayCount: DayCount): Decimal {
  const year = +day.slice(0, 4);
  const dom = +day.slice(8, 10);
  switch (dayCount) {
    case 'actual/360':
      return new Decimal(1).div(360);
    case 'actual/365':
      return new Decimal(1).div(365);
    case 'actual/actual':
      return new Decimal(1).div(isLeap(year) ? 366 : 365);
    case 'daily':
      return new Decimal(1);
    case '30E/360': {
      // Every month counts 30 days: the 31st counts nothing, the month's last day counts for the
      // days up to the 30th it skips (28 Feb: 3 days, 29 Feb: 2), any other day counts one.
      const last = dom === monthLength(year, +day.slice(5, 7));
      const days = last ? 31 - Math.min(dom, 30) : dom >= 30 ? 0 : 1;
      return new Decimal(days).div(360);
    }
  }
}

interface Scenario {
  principal: number;
  from: string;
  to: string;
  dayCount: DayCount;
  table: DefaultInterestRateTable;
  payer: PayerKind | undefined;
  agreed: number | undefined;
}

function reference(s: Scenario): Decimal {
  let base = new Decimal(s.principal);
  let total = new Decimal(0);
  let sinceCapitalised = new Decimal(0);
  let k = 1;
  for (let t = ms(s.from); t < ms(s.to); t += DAY_MS) {
    const day = iso(t);
    if (day === anniversary(s.from, k)) {
      base = base.plus(sinceCapitalised);
      sinceCapitalised = new Decimal(0);
      k++;
    }
    let entry = s.table[0]!;
    for (const e of s.table) if (e.from <= day) entry = e;
    const statutory = s.payer === 'business' ? entry.business : entry.consumer;
    let rate = statutory;
    if (s.agreed !== undefined)
      rate = s.payer === 'consumer' && s.dayCount !== 'daily' ? Math.min(s.agreed, statutory) : s.agreed;
    const interest = base.times(rate).div(100).times(dayWeight(day, s.dayCount));
    total = total.plus(interest);
    sinceCapitalised = sinceCapitalised.plus(interest);
  }
  return total;
}

const START = ms('2021-01-01');
const dateIn = (minMs: number, days: number) =>
  fc.integer({ min: 0, max: days }).map((n) => iso(minMs + n * DAY_MS));
const pct = fc.integer({ min: 0, max: 3_000 }).map((h) => h / 100);

/** A table whose first entry is on or before 2021-01-01 and whose later ones fall up to 2032. */
const table: fc.Arbitrary<DefaultInterestRateTable> = fc
  .tuple(
    fc.record({ consumer: pct, business: pct }),
    fc.array(
      fc.record({
        // Mostly the 1st of a month, as the Central Bank publishes; sometimes any day.
        from: fc.oneof(
          fc
            .tuple(fc.integer({ min: 2021, max: 2031 }), fc.integer({ min: 1, max: 12 }))
            .map(([y, m]) => `${y}-${String(m).padStart(2, '0')}-01`),
          dateIn(START, 11 * 365),
        ),
        consumer: pct,
        business: pct,
      }),
      { maxLength: 12 },
    ),
    dateIn(ms('2019-01-01'), 730),
  )
  .map(([first, rest, firstFrom]) => {
    const byDate = new Map(rest.filter((e) => e.from > firstFrom).map((e) => [e.from, e]));
    return [
      { from: firstFrom, ...first },
      ...[...byDate.values()].sort((a, b) => (a.from < b.from ? -1 : 1)),
    ];
  });

const scenario: fc.Arbitrary<Scenario> = fc
  .record({
    principal: fc.oneof(fc.integer({ min: 0, max: 1_000 }), fc.integer({ min: 0, max: 2_000_000_000 })),
    from: dateIn(START, 6 * 365),
    length: fc.oneof(fc.integer({ min: 0, max: 400 }), fc.integer({ min: 0, max: 5 * 366 })),
    dayCount: fc.constantFrom<DayCount>('actual/360', 'actual/365', 'actual/actual', '30E/360', 'daily'),
    table,
    payer: fc.constantFrom<PayerKind | undefined>('consumer', 'business', undefined),
    agreed: fc.option(pct, { nil: undefined }),
  })
  .map(({ length, from, ...rest }) => ({ ...rest, from, to: iso(ms(from) + length * DAY_MS) }));

// Sums of many terms each exact to 20 significant digits: the two walks agree to a ten-thousandth
// of a króna, or to 1e-12 of the amount when a per-day rate over years makes it astronomical.
const TOLERANCE = new Decimal('0.0001');
const tolerance = (amount: Decimal) => Decimal.max(TOLERANCE, amount.abs().times('1e-12'));

describe('default interest against a day-by-day reference', () => {
  test('same interest for random principals, periods up to five years and random rate tables', () => {
    fc.assert(
      fc.property(scenario, (s) => {
        const got = accrueDefaultInterest({
          principal: s.principal,
          from: s.from,
          to: s.to,
          dayCount: s.dayCount,
          rates: s.table,
          payer: s.payer,
          agreedPercentage: s.agreed,
        });
        const want = reference(s);
        expect(got.exact.minus(want).abs().lte(tolerance(want))).toBe(true);
        // Capitalisations: one per anniversary strictly before the payment date.
        let n = 0;
        while (anniversary(s.from, n + 1) < s.to) n++;
        expect(got.capitalisations).toBe(n);
      }),
      { numRuns: 300 },
    );
  });

  test('claimAmountDue rounds the same interest half-up once', () => {
    fc.assert(
      fc.property(scenario, (s) => {
        const due = claimAmountDue(
          {
            principal: s.principal,
            dueDate: s.from,
            finalDueDate: s.from,
            defaultInterest: {
              referenceDate: 'DueDate',
              dayCount: s.dayCount,
              basis: 'principal',
              percentage: s.agreed,
            },
          },
          s.to,
          { statutoryRates: s.table, ...(s.payer && { payer: s.payer }) },
        );
        if (!due.inDefault) return; // paid within the grace of an eindagi on a non-banking day
        const want = reference(s);
        // Exactly the half-up rounding of the reference, unless the reference sits within the
        // tolerance of a half króna (then either neighbour is right). A per-day rate over years
        // makes amounts past 2^53, where the tolerance itself is more than a króna (seed -928802749).
        const frac = want.minus(want.floor());
        if (frac.minus(0.5).abs().gt(tolerance(want)))
          expect(due.defaultInterest).toBe(want.toDecimalPlaces(0, Decimal.ROUND_HALF_UP).toNumber());
        else
          expect(new Decimal(due.defaultInterest).minus(want).abs().lte(tolerance(want).plus(0.5))).toBe(
            true,
          );
      }),
      { numRuns: 150 },
    );
  });

  test('one rate and under twelve months: the old simple interest, to the króna', () => {
    // What claimAmountDue computed before the rate table: base × rate × year fraction, rounded
    // half-up. The table repeats the same rate on random dates, so the period is split at each of
    // them and the day counts' additivity is what keeps the figure where it was.
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2_000_000_000 }),
        dateIn(START, 6 * 365),
        fc.integer({ min: 0, max: 364 }),
        fc.constantFrom<DayCount>('actual/360', 'actual/365', 'actual/actual', '30E/360', 'daily'),
        pct,
        fc.uniqueArray(dateIn(START, 7 * 365), { maxLength: 8 }),
        (principal, from, length, dayCount, rate, changes) => {
          const to = iso(ms(from) + length * DAY_MS);
          const rates = ['2019-01-01', ...changes.sort()].map((d) => ({
            from: d,
            consumer: rate,
            business: rate,
          }));
          const got = accrueDefaultInterest({ principal, from, to, dayCount, rates });
          const simple = new Decimal(principal)
            .times(rate)
            .div(100)
            .times(yearFraction(from, to, dayCount).fraction);
          expect(got.exact.minus(simple).abs().lte(tolerance(simple))).toBe(true);
          const frac = simple.minus(simple.floor());
          if (frac.minus(0.5).abs().gt(tolerance(simple)))
            expect(got.exact.toDecimalPlaces(0, Decimal.ROUND_HALF_UP).toNumber()).toBe(
              simple.toDecimalPlaces(0, Decimal.ROUND_HALF_UP).toNumber(),
            );
          expect(got.capitalisations).toBe(0);
        },
      ),
      { numRuns: 300 },
    );
  });
});
