import { changePerMille, daysOf, mrrSamplePoints, periodRanges } from '../../domain/dashboard-periods';
import { csvCell, csvRow } from '../../domain/csv';
import { searchTerms } from '../../services/dashboard/search';
import { readPaymentFilter } from '../../services/dashboard/payment-list';

const iso = (r: { from: Date; to: Date }) => [r.from.toISOString(), r.to.toISOString()];

describe('home periods (decision 0230)', () => {
  const now = new Date('2026-03-01T10:30:00Z');

  test('today, 7 and 30 days end with today; each compared with as many days before', () => {
    expect(iso(periodRanges('today', now).current)).toEqual([
      '2026-03-01T00:00:00.000Z',
      '2026-03-02T00:00:00.000Z',
    ]);
    expect(iso(periodRanges('today', now).previous)).toEqual([
      '2026-02-28T00:00:00.000Z',
      '2026-03-01T00:00:00.000Z',
    ]);
    expect(iso(periodRanges('7d', now).current)).toEqual([
      '2026-02-23T00:00:00.000Z',
      '2026-03-02T00:00:00.000Z',
    ]);
    expect(iso(periodRanges('7d', now).previous)).toEqual([
      '2026-02-16T00:00:00.000Z',
      '2026-02-23T00:00:00.000Z',
    ]);
    expect(daysOf(periodRanges('30d', now).current)).toHaveLength(30);
    expect(daysOf(periodRanges('30d', now).previous)[29]).toBe('2026-01-30');
  });

  test('this month against the whole month before, across a year end', () => {
    const jan = new Date('2027-01-15T00:00:00Z');
    expect(iso(periodRanges('month', jan).current)).toEqual([
      '2027-01-01T00:00:00.000Z',
      '2027-02-01T00:00:00.000Z',
    ]);
    expect(iso(periodRanges('month', jan).previous)).toEqual([
      '2026-12-01T00:00:00.000Z',
      '2027-01-01T00:00:00.000Z',
    ]);
  });

  test('MRR samples: the start of each of the twelve months before, then now', () => {
    const points = mrrSamplePoints(now).map((d) => d.toISOString().slice(0, 10));
    expect(points).toHaveLength(13);
    expect(points[0]).toBe('2025-04-01');
    expect(points[11]).toBe('2026-03-01');
  });

  test('change in per mille; none against zero', () => {
    expect(changePerMille(150, 100)).toBe(500);
    expect(changePerMille(50, 100)).toBe(-500);
    expect(changePerMille(1, 3)).toBe(-667);
    expect(changePerMille(5, 0)).toBeNull();
  });
});

describe('CSV cells (decision 0232)', () => {
  test('formula-looking text gets an apostrophe; numbers stay numbers; quoting by RFC 4180', () => {
    for (const text of ['=1+2', '+1', '-1', '@SUM(A1)', '\tx', '\rx'])
      expect(csvCell(text).startsWith("'") || csvCell(text).startsWith(`"'`)).toBe(true);
    expect(csvCell('=HYPERLINK("a","b")')).toBe(`"'=HYPERLINK(""a"",""b"")"`);
    expect(csvCell(-500)).toBe('-500');
    expect(csvCell('Vara, stór')).toBe('"Vara, stór"');
    expect(csvCell(null)).toBe('');
    expect(csvRow(['a', 1, null])).toBe('a,1,\r\n');
  });
});

describe('search terms (decision 0231)', () => {
  test('amounts either way, last four, kennitala with a dash, krafa numbers', () => {
    expect(searchTerms('4.900 kr.')).toMatchObject({ amount: 4900, last4: null });
    expect(searchTerms('ISK 4,900')).toMatchObject({ amount: 4900 });
    expect(searchTerms('4242')).toMatchObject({ amount: 4242, last4: '4242', claimNumber: 4242 });
    expect(searchTerms('010130-2989')).toMatchObject({ kennitala: '0101302989', amount: null });
    expect(searchTerms('gudrun@example.is')).toMatchObject({ amount: null, kennitala: null, last4: null });
    expect(searchTerms('   ')).toBeNull();
  });
});

describe('payment list filters (decision 0232)', () => {
  test('each fault named by its field; reversed pairs are faults of the second', () => {
    const r = readPaymentFilter({ from: '2026-12-10', to: '2026-12-01', min: '5.000', max: '100' });
    expect(r.errors).toEqual([
      { param: 'to', code: 'reversed' },
      { param: 'max', code: 'reversed' },
    ]);
    expect(
      readPaymentFilter({ from: '2026-02-30', min: '1e5', sort: 'x' }).errors.map((e) => e.param),
    ).toEqual(['from', 'min', 'sort']);
    const ok = readPaymentFilter({ from: '2026-12-01', to: '2026-12-01', min: '4.900', kind: 'krafa' });
    expect(ok.errors).toEqual([]);
    expect(ok.filter).toEqual({
      createdFrom: new Date('2026-12-01T00:00:00Z'),
      createdBefore: new Date('2026-12-02T00:00:00Z'),
      amountMin: 4900,
      kind: 'krafa',
    });
    expect(readPaymentFilter({ status: ['a', 'b'] }).errors).toEqual([]);
  });
});
