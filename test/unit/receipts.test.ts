import {
  buildReceipt,
  renderReceiptEmail,
  renderReceiptPage,
  type ReceiptInput,
} from '../../services/receipts';
import { vatOf } from '../../domain/vat';

// Issue 19, Done means 4: the 80 mm receipt shows VAT per rate. Lines at 24 %, 11 % and 0 % with a
// discount and a split payment; the VAT of each rate is computed here independently. Decision 0234:
// at 0 % zero-rated, exempt and outside-the-scope takings are separate lines, labelled apart.

const input: ReceiptInput = {
  kind: 'receipt',
  number: '42',
  issuedAt: new Date('2026-12-19T14:05:00Z'),
  locale: 'is',
  seller: { name: 'Kaffi Skil ehf.', kennitala: '5510730339', vatNumber: '123456' },
  lines: [
    { description: 'Kaffi', quantity: 2, unitAmount: 650, vatRate: 11 },
    { description: 'Bolli', quantity: 1, unitAmount: 2490, discountAmount: 249, vatRate: 24 },
    { description: 'Bók', quantity: 1, unitAmount: 3990, vatRate: 11 },
    { description: 'Gjafabréf', quantity: 1, unitAmount: 5000, vatRate: 0 },
    { description: 'Námskeið', quantity: 1, unitAmount: 1200, vatRate: 0, vatCategory: 'E' },
    { description: 'Útlagður kostnaður', quantity: 1, unitAmount: 300, vatRate: 0, vatCategory: 'O' },
    { description: 'Útflutt vara', quantity: 1, unitAmount: 700, vatRate: 0, vatCategory: 'Z' },
  ],
  payments: [
    { method: 'card', amount: 5000, cardLast4: '4242' },
    { method: 'cash', amount: 9731, tendered: 10000 },
  ],
};

test('the receipt sums the lines and gives one VAT line per category and rate', () => {
  const r = buildReceipt(input);
  const at11 = 2 * 650 + 3990;
  const at24 = 2490 - 249;
  expect(r.total).toBe(at11 + at24 + 5000 + 1200 + 300 + 700);
  expect(r.discount).toBe(249);
  // The gift card names no category: zero rated, derived, together with the explicit Z line.
  expect(r.vat).toEqual([
    { rate: 0, category: 'Z', gross: 5700, vat: 0, net: 5700 },
    { rate: 0, category: 'E', gross: 1200, vat: 0, net: 1200 },
    { rate: 0, category: 'O', gross: 300, vat: 0, net: 300 },
    { rate: 11, category: 'S', gross: at11, vat: vatOf(at11, 11), net: at11 - vatOf(at11, 11) },
    { rate: 24, category: 'S', gross: at24, vat: vatOf(at24, 24), net: at24 - vatOf(at24, 24) },
  ]);
  expect(r.change).toBe(10000 - 9731);
});

test('the printable page is 80 mm wide and shows VAT per rate, the total and the change', () => {
  const page = renderReceiptPage(input).value;
  expect(page).toMatch(/@page \{ size: 80mm auto/);
  const r = buildReceipt(input);
  const label = { S: '', Z: ' núllskattað', E: ' undanþegið', O: ' utan gildissviðs VSK' };
  for (const v of r.vat) {
    const row = new RegExp(
      `<tr data-vat-rate="${v.rate}" data-vat-category="${v.category}">\\s*<td>${v.rate}%${label[v.category]}</td>[\\s\\S]*?data-vat="${v.vat}"`,
    );
    expect(page).toMatch(row);
  }
  expect(page).toContain(`data-total="${r.total}"`);
  expect(page).toContain('14.731 kr.');
  expect(page).toContain(`data-change="${r.change}"`);
  expect(page).toContain('Kort •••• 4242');
});

test('the email carries the same VAT lines, in English too, and escapes what it prints', () => {
  const en = renderReceiptEmail({ ...input, locale: 'en', seller: { name: 'Café <Skil>' } });
  expect(en.subject).toBe('Receipt 42 — Café <Skil>');
  expect(en.text).toContain('VAT 24%: Net ISK 1,807, VAT ISK 434, Gross ISK 2,241');
  expect(en.text).toContain('VAT 11%');
  expect(en.text).toContain('VAT 0% zero rated: Net ISK 5,700');
  expect(en.text).toContain('VAT 0% exempt: Net ISK 1,200');
  expect(en.text).toContain('VAT 0% outside the scope of VAT: Net ISK 300');
  expect(en.text).not.toMatch(/VAT 0%:/);
  expect(en.html).toContain('Café &lt;Skil&gt;');
  expect(en.html).not.toContain('<Skil>');
});
