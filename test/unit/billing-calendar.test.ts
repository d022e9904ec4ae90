import fc from 'fast-check';
import { addMonths, addWeeks, addYears } from 'date-fns';
import { fromZonedTime, toZonedTime } from 'date-fns-tz';
import {
  BILLING_TIME_ZONE,
  ICELAND_ON_UTC_SINCE,
  billingDays,
  periodAt,
  periodContaining,
  periodStart,
  prorate,
  type BillingInterval,
  type Recurrence,
} from '../../domain/billing-calendar';

const monthly: Recurrence = { interval: 'month', intervalCount: 1 };
const yearly: Recurrence = { interval: 'year', intervalCount: 1 };
const weekly: Recurrence = { interval: 'week', intervalCount: 1 };
const iso = (d: Date) => d.toISOString();
const starts = (anchor: string, r: Recurrence, n: number) =>
  Array.from({ length: n }, (_, i) => iso(periodStart(new Date(anchor), r, i)));

describe('billing anchors keep their day', () => {
  test('monthly from 31 January: 28/29 February, 31 March, 30 April, …', () => {
    expect(starts('2026-01-31T09:30:00Z', monthly, 7)).toEqual([
      '2026-01-31T09:30:00.000Z',
      '2026-02-28T09:30:00.000Z',
      '2026-03-31T09:30:00.000Z',
      '2026-04-30T09:30:00.000Z',
      '2026-05-31T09:30:00.000Z',
      '2026-06-30T09:30:00.000Z',
      '2026-07-31T09:30:00.000Z',
    ]);
    expect(starts('2028-01-31T00:00:00Z', monthly, 3)).toEqual([
      '2028-01-31T00:00:00.000Z',
      '2028-02-29T00:00:00.000Z', // leap year
      '2028-03-31T00:00:00.000Z',
    ]);
  });

  test('monthly from the 30th and the 29th', () => {
    expect(starts('2027-01-30T12:00:00Z', monthly, 3).map((s) => s.slice(0, 10))).toEqual([
      '2027-01-30',
      '2027-02-28',
      '2027-03-30',
    ]);
    expect(starts('2028-01-29T12:00:00Z', monthly, 3).map((s) => s.slice(0, 10))).toEqual([
      '2028-01-29',
      '2028-02-29',
      '2028-03-29',
    ]);
  });

  test('yearly from 29 February: 28 February, then 29 February in leap years', () => {
    expect(starts('2024-02-29T08:00:00Z', yearly, 6).map((s) => s.slice(0, 10))).toEqual([
      '2024-02-29',
      '2025-02-28',
      '2026-02-28',
      '2027-02-28',
      '2028-02-29',
      '2029-02-28',
    ]);
  });

  test('weekly keeps the weekday and the time of day', () => {
    const list = starts('2026-11-18T17:45:00Z', weekly, 6); // a Wednesday
    for (const s of list) {
      expect(new Date(s).getUTCDay()).toBe(3);
      expect(s.slice(11)).toBe('17:45:00.000Z');
    }
    expect(list[5]!.slice(0, 10)).toBe('2026-12-23');
  });

  test('an interval count of 3 months bills quarterly from the anchor', () => {
    expect(
      starts('2026-11-30T00:00:00Z', { interval: 'month', intervalCount: 3 }, 4).map((s) => s.slice(0, 10)),
    ).toEqual(['2026-11-30', '2027-02-28', '2027-05-30', '2027-08-30']);
  });

  test('bad inputs are refused', () => {
    expect(() => periodStart(new Date(), monthly, -1)).toThrow(RangeError);
    expect(() => periodStart(new Date(), { interval: 'month', intervalCount: 0 }, 1)).toThrow(RangeError);
  });
});

describe('periodContaining', () => {
  const anchor = new Date('2026-01-31T10:00:00Z');
  test.each([
    ['2026-01-31T10:00:00Z', 0, '2026-01-31', '2026-02-28'],
    ['2026-02-28T09:59:59Z', 0, '2026-01-31', '2026-02-28'],
    ['2026-02-28T10:00:00Z', 1, '2026-02-28', '2026-03-31'],
    ['2026-12-31T10:00:00Z', 11, '2026-12-31', '2027-01-31'],
    ['2036-03-01T00:00:00Z', 121, '2036-02-29', '2036-03-31'],
  ])('%s is in period %d (%s to %s)', (at, index, start, end) => {
    const p = periodContaining(anchor, monthly, new Date(at));
    expect(p.index).toBe(index);
    expect(iso(p.start).slice(0, 10)).toBe(start);
    expect(iso(p.end).slice(0, 10)).toBe(end);
  });

  test('agrees with walking every period one by one for ten years of weeks', () => {
    const a = new Date('2026-03-04T06:00:00Z');
    for (let i = 0; i < 520; i += 7) {
      const p = periodAt(a, weekly, i);
      expect(periodContaining(a, weekly, p.start).index).toBe(i);
      expect(periodContaining(a, weekly, new Date(p.end.getTime() - 1)).index).toBe(i);
    }
  });
});

describe('proration to the day, in whole krónur', () => {
  const period = periodAt(new Date('2026-01-31T00:00:00Z'), monthly, 0); // 28 days

  test('counts Iceland calendar days', () => {
    expect(billingDays(period.start, period.end)).toBe(28);
  });

  test.each([
    ['2026-01-31T00:00:00Z', 9900, 9900],
    ['2026-02-14T00:00:00Z', 9900, 4950], // 14 of 28 days left
    ['2026-02-21T00:00:00Z', 1000, 250],
    ['2026-02-27T00:00:00Z', 1000, 36], // 1/28 of 1000 = 35.71 → 36
    ['2026-02-28T00:00:00Z', 1000, 0],
    ['2026-02-08T00:00:00Z', 1, 1], // 20/28 of 1 = 0.714 → 1
    ['2026-02-15T00:00:00Z', 7, 3], // 13/28 of 7 = 3.25 → 3
  ])('at %s, %d ISK leaves %d', (at, amount, expected) => {
    expect(prorate(amount, period, new Date(at))).toBe(expected);
  });

  test('half a króna rounds up', () => {
    // 2 days left of 28 on 7 ISK = 0.5 → 1
    expect(prorate(7, period, new Date('2026-02-26T00:00:00Z'))).toBe(1);
  });

  test('refuses fractional or negative amounts', () => {
    expect(() => prorate(10.5, period, period.start)).toThrow(RangeError);
    expect(() => prorate(-1, period, period.start)).toThrow(RangeError);
  });
});

describe('the UTC calendar stands in for the Iceland zone from 1970 on', () => {
  // The boundary through the time-zone database, as periodStart computed it for every anchor before.
  const throughZone = (anchor: Date, r: Recurrence, index: number) => {
    const wall = toZonedTime(anchor, BILLING_TIME_ZONE);
    const steps = index * r.intervalCount;
    const add = r.interval === 'week' ? addWeeks : r.interval === 'month' ? addMonths : addYears;
    return fromZonedTime(add(wall, steps), BILLING_TIME_ZONE);
  };

  test('the same boundaries for any anchor, interval and index', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: ICELAND_ON_UTC_SINCE, max: Date.UTC(2120, 0, 1) }),
        fc.constantFrom<BillingInterval>('week', 'month', 'year'),
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 0, max: 400 }),
        (ms, interval, intervalCount, index) => {
          const r = { interval, intervalCount };
          expect(iso(periodStart(new Date(ms), r, index))).toBe(iso(throughZone(new Date(ms), r, index)));
        },
      ),
      { numRuns: 5000 },
    );
  });

  test('month ends, leap days and the last millisecond of a day', () => {
    for (const anchor of [
      '1970-01-01T00:00:00.000Z',
      '1999-12-31T23:59:59.999Z',
      '2024-02-29T23:59:59.999Z',
      '2026-01-31T00:00:00.000Z',
      '2026-08-31T12:00:00.000Z',
      '2100-02-28T06:00:00.000Z',
    ])
      for (const interval of ['week', 'month', 'year'] as const)
        for (let index = 0; index < 50; index++) {
          const r = { interval, intervalCount: 1 };
          expect(iso(periodStart(new Date(anchor), r, index))).toBe(
            iso(throughZone(new Date(anchor), r, index)),
          );
        }
  });
});
