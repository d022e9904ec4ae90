import { ZERO_FIGURES, type VatFigures } from '../../domain/vat-report';
import type { TestMerchant, TestStack } from './stack';

/**
 * What the books tests read back through the API (decisions 0238–0241): the VAT report's boxes, a
 * period's journal paged through, and the two figures a journal is held to — each day balanced, and
 * its sales and VAT equal to the report's boxes.
 */

/** The report's boxes, as `GET /v1/reports/vat` answers them. */
export type Boxes = VatFigures;
export const zero = (): Boxes => ({ ...ZERO_FIGURES });

/** The kennitala the registered sellers of these tests have. */
const SELLER_KENNITALA = '5510730339';

/** The two-month period that holds `ms`, as the API names it, with its first instant. */
export function periodOf(ms: number) {
  const d = new Date(ms);
  const first = d.getUTCMonth() - (d.getUTCMonth() % 2);
  return {
    id: `${d.getUTCFullYear()}-${String(first + 1).padStart(2, '0')}`,
    start: Date.UTC(d.getUTCFullYear(), first, 1),
    end: Date.UTC(d.getUTCFullYear(), first + 2, 1),
  };
}

/** Makes the merchant a company registered for VAT, filing every two months. */
export async function registeredSeller(stack: TestStack, m: TestMerchant): Promise<void> {
  const res = await stack.api(m.testKey, '/v1/merchant', {
    method: 'PATCH',
    json: {
      merchant_type: 'company',
      kennitala: SELLER_KENNITALA,
      legal_address: { street: 'Laugavegur 1', city: 'Reykjavík', postalCode: '101', country: 'IS' },
      bank_account: '0133-26-012345',
      vat_number: '123456',
      default_vat_rate: 24,
    },
  });
  expect(res.status).toBe(200);
  expect(res.body.vat_period).toBe('two_month');
}

interface Entry {
  date: string;
  source: { type: string; id: string };
  lines: { account: string; account_number: string; account_name: string; debit: number; credit: number }[];
}

/** Every entry of a period's journal, through `next_page`. */
export async function journalOf(stack: TestStack, m: TestMerchant, period: string, limit = 100) {
  const entries: Entry[] = [];
  let page = '';
  for (;;) {
    const r = await stack.api(
      m.testKey,
      `/v1/reports/journal?period=${period}&limit=${limit}${page && `&page=${page}`}`,
    );
    expect(r.status).toBe(200);
    entries.push(...(r.body.data as Entry[]));
    if (!r.body.has_more) return { entries, status: r.body.period.status as string };
    page = r.body.next_page;
  }
}

/** The journal's sales and VAT as the report's boxes: credits less debits on those accounts. */
export function boxesOfJournal(entries: Entry[]): Boxes {
  const box: Record<string, keyof Boxes> = {
    sales_24: 'A',
    sales_11: 'B',
    sales_zero_rated: 'C',
    sales_out_of_scope: 'out_of_scope',
    output_vat_24: 'vat_24',
    output_vat_11: 'vat_11',
  };
  const b = zero();
  for (const e of entries)
    for (const l of e.lines) if (box[l.account]) b[box[l.account]!] += l.credit - l.debit;
  b.D = b.vat_24 + b.vat_11;
  return b;
}

/** The days whose debits and credits differ, with the difference; empty when every day balances. */
export function dayImbalance(entries: Entry[]): [string, number][] {
  const days = new Map<string, number>();
  for (const e of entries)
    for (const l of e.lines) days.set(e.date, (days.get(e.date) ?? 0) + l.debit - l.credit);
  return [...days].filter(([, v]) => v !== 0);
}
