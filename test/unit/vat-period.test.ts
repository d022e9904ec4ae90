import { lastEndedVatPeriod, parseVatPeriod, vatPeriod, vatPeriodOf } from '../../domain/vat-period';
import { vatBox } from '../../domain/vat-box';
import { posRefundDocument, posSaleDocument } from '../../domain/vat-report';

test('every two-month period of 2026–2028: its days, and a due date on the 5th of the second month after or the next working day', () => {
  const seen: string[] = [];
  for (const y of [2026, 2027, 2028])
    for (const m of [1, 3, 5, 7, 9, 11]) {
      const p = vatPeriod('two_month', y, m);
      const due = new Date(`${p.due_date}T00:00:00Z`);
      const nominal = new Date(Date.UTC(y, m + 2, 5));
      expect(due.getTime()).toBeGreaterThanOrEqual(nominal.getTime());
      expect(due.getTime() - nominal.getTime()).toBeLessThan(5 * 86_400_000);
      expect([0, 6]).not.toContain(due.getUTCDay());
      seen.push(`${p.id} ${p.start}..${p.end} ${p.due_date}`);
    }
  expect(seen.slice(0, 6)).toEqual([
    '2026-01 2026-01-01..2026-02-28 2026-04-07', // 5 April Easter Sunday, 6 Easter Monday
    '2026-03 2026-03-01..2026-04-30 2026-06-05',
    '2026-05 2026-05-01..2026-06-30 2026-08-05',
    '2026-07 2026-07-01..2026-08-31 2026-10-05',
    '2026-09 2026-09-01..2026-10-31 2026-12-07', // 5 December a Saturday
    '2026-11 2026-11-01..2026-12-31 2027-02-05',
  ]);
  expect(vatPeriod('two_month', 2028, 1).end).toBe('2028-02-29');
});

test('the period parameter: odd months and years; an even month names its period', () => {
  expect(parseVatPeriod('2027-03')).toMatchObject({ ok: true, period: { id: '2027-03', end: '2027-04-30' } });
  expect(parseVatPeriod('2027')).toMatchObject({
    ok: true,
    period: { kind: 'yearly', due_date: '2028-02-07' },
  });
  expect(parseVatPeriod('2027-04')).toEqual({
    ok: false,
    message: 'two-month periods start in an odd month: 2027-04 is in the period 2027-03',
  });
  for (const bad of ['2027-00', '2027-13', '2027-1', 'x']) expect(parseVatPeriod(bad).ok).toBe(false);
  expect(vatPeriodOf('two_month', '2026-12-03').id).toBe('2026-11');
  expect(lastEndedVatPeriod('two_month', '2027-01-10').id).toBe('2026-11');
  expect(lastEndedVatPeriod('yearly', '2027-01-10').id).toBe('2026');
});

test('boxes: 24 and 11 by rate; 0 % zero-rated for a registered seller, outside for one that is not; categories E and O outside', () => {
  const reg = { registered: true };
  expect(vatBox({ vat_rate: 24 }, reg)).toBe('A');
  expect(vatBox({ vat_rate: 11 }, reg)).toBe('B');
  expect(vatBox({ vat_rate: 0 }, reg)).toBe('C');
  expect(vatBox({ vat_rate: 0, vat_category: 'Z' }, { registered: false })).toBe('C');
  expect(vatBox({ vat_rate: 0 }, { registered: false })).toBe('out_of_scope');
  expect(vatBox({ vat_rate: 0, vat_category: 'E' }, reg)).toBe('out_of_scope');
  expect(vatBox({ vat_rate: 0, vat_category: 'O' }, reg)).toBe('out_of_scope');
});

test('a full till refund reverses its sale exactly; a partial one is shared among the rates', () => {
  const lines = [
    { vat_rate: 24 as const, amount: 2_490 },
    { vat_rate: 11 as const, amount: 1_950 },
  ];
  const sale = posSaleDocument(lines);
  const full = posRefundDocument(lines, 4_440);
  expect(full.lines.map((l) => l.net_amount).sort()).toEqual(sale.lines.map((l) => l.net_amount).sort());
  expect(full.vat.map((v) => v.vat_amount).sort()).toEqual(sale.vat.map((v) => v.vat_amount).sort());
  const part = posRefundDocument(lines, 1_000);
  const gross =
    part.lines.reduce((s, l) => s + l.net_amount, 0) + part.vat.reduce((s, v) => s + v.vat_amount, 0);
  expect(gross).toBe(1_000);
});
