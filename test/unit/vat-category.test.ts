import { conflictingVatLine, effectiveVatCategory, vatTreatmentProblem } from '../../domain/vat-category';
import { creditLines, invoiceAmounts, type SaleLine } from '../../domain/invoices';

const registered = { vat_number: '123456' };
const unregistered = { vat_number: null };

test('the effective category: the line’s own, else derived as before; O for a seller without a VAT number', () => {
  expect(effectiveVatCategory(24, null, registered)).toBe('S');
  expect(effectiveVatCategory(11, undefined, registered)).toBe('S');
  expect(effectiveVatCategory(0, null, registered)).toBe('Z');
  expect(effectiveVatCategory(0, 'E', registered)).toBe('E');
  expect(effectiveVatCategory(0, 'O', registered)).toBe('O');
  for (const c of [null, 'S', 'Z', 'E'] as const) expect(effectiveVatCategory(0, c, unregistered)).toBe('O');
});

test('rate and category go together, and E has a reason', () => {
  expect(vatTreatmentProblem(24, {})).toBeNull();
  expect(vatTreatmentProblem(11, { vat_category: 'S' })).toBeNull();
  expect(vatTreatmentProblem(0, { vat_category: 'S' })?.param).toBe('vat_rate');
  expect(vatTreatmentProblem(24, { vat_category: 'Z' })?.param).toBe('vat_rate');
  expect(vatTreatmentProblem(11, { vat_category: 'E', vat_exemption_reason: 'x' })?.param).toBe('vat_rate');
  expect(vatTreatmentProblem(0, { vat_category: 'E' })?.param).toBe('vat_exemption_reason');
  expect(
    vatTreatmentProblem(0, { vat_category: 'E', vat_exemption_reason_code: 'VATEX-EU-132-1I' }),
  ).toBeNull();
  expect(vatTreatmentProblem(0, { vat_category: 'E', vat_exemption_reason_code: 'VATEX-EU-G' })?.param).toBe(
    'vat_exemption_reason_code',
  );
  expect(vatTreatmentProblem(0, { vat_category: 'O' })).toBeNull();
  expect(vatTreatmentProblem(0, { vat_category: 'O', vat_exemption_reason_code: 'VATEX-EU-O' })).toBeNull();
  expect(vatTreatmentProblem(0, { vat_category: 'O', vat_exemption_reason_code: 'VATEX-EU-D' })?.param).toBe(
    'vat_exemption_reason_code',
  );
  expect(vatTreatmentProblem(0, { vat_category: 'Z', vat_exemption_reason: 'x' })?.param).toBe(
    'vat_exemption_reason',
  );
});

test('one invoice holds one kind of line: taxable, exempt or outside the scope', () => {
  expect(conflictingVatLine([null, 'S', 'Z'])).toBe(-1);
  expect(conflictingVatLine(['E', 'E'])).toBe(-1);
  expect(conflictingVatLine(['O'])).toBe(-1);
  expect(conflictingVatLine([null, 'E'])).toBe(1);
  expect(conflictingVatLine(['O', 'S'])).toBe(1);
  expect(conflictingVatLine(['E', 'E', 'Z'])).toBe(2);
});

test('VAT is grouped per category and rate, E and Z apart at 0 %, and a partial credit keeps the groups', () => {
  const line = (
    unit_amount: number,
    vat_rate: 0 | 24,
    vat_category: 'S' | 'Z' | 'E',
    reason: string | null = null,
  ): SaleLine => ({
    description: 'x',
    quantity: 1,
    unit_amount,
    vat_rate,
    vat_category,
    vat_exemption_reason: reason,
    vat_exemption_reason_code: null,
  });
  const amounts = invoiceAmounts([line(1240, 24, 'S'), line(500, 0, 'Z'), line(700, 0, 'E', 'Kennsla')]);
  expect(
    amounts.vat.map((v) => [v.rate, v.category, v.amount, v.vat_amount, v.exemption_reason ?? null]),
  ).toEqual([
    [0, 'E', 700, 0, 'Kennsla'],
    [0, 'Z', 500, 0, null],
    [24, 'S', 1240, 240, null],
  ]);
  const credit = creditLines(amounts, 1220, 'Refund');
  expect(credit.map((l) => [l.vat_category, l.vat_rate])).toEqual([
    ['E', 0],
    ['Z', 0],
    ['S', 24],
  ]);
  expect(credit.reduce((s, l) => s + l.unit_amount, 0)).toBe(1220);
  expect(credit[0]!.vat_exemption_reason).toBe('Kennsla');
});
