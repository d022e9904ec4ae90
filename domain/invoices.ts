import Decimal from 'decimal.js';
import { vatOf, type VatRate } from './vat';

/** A line as sold: VAT-inclusive ISK, as every amount in Skil (spec §2.1). */
export interface SaleLine {
  description: string;
  quantity: number;
  /** Price per unit with VAT; negative for a discount or a credit. */
  unit_amount: number;
  vat_rate: VatRate;
}

export interface InvoiceLine extends SaleLine {
  /** quantity × unit_amount, with VAT. */
  amount: number;
  /** The line's share of its rate's amount without VAT; the shares add up to the rate's taxable amount. */
  net_amount: number;
}

export interface VatPerRate {
  rate: VatRate;
  /** Amount with VAT of the lines at this rate. */
  amount: number;
  taxable_amount: number;
  vat_amount: number;
}

export interface InvoiceAmounts {
  lines: InvoiceLine[];
  vat: VatPerRate[];
  total: number;
  total_vat: number;
}

/**
 * An invoice's amounts: VAT is computed once per rate from the rate's VAT-inclusive sum (half up,
 * whole krónur), and the rate's taxable amount is shared among its lines by largest remainder, so
 * the lines' net amounts add up exactly to it (EN 16931 BR-CO-10 and BR-S-08).
 */
export function invoiceAmounts(sale: readonly SaleLine[]): InvoiceAmounts {
  const lines = sale.map((l) => ({ ...l, amount: l.quantity * l.unit_amount, net_amount: 0 }));
  const rates = [...new Set(lines.map((l) => l.vat_rate))].sort((a, b) => a - b);
  const vat: VatPerRate[] = [];
  for (const rate of rates) {
    const atRate = lines.filter((l) => l.vat_rate === rate);
    const amount = atRate.reduce((s, l) => s + l.amount, 0);
    const vatAmount = amount >= 0 ? vatOf(amount, rate) : -vatOf(-amount, rate);
    const taxable = amount - vatAmount;
    allocate(taxable, atRate);
    vat.push({ rate, amount, taxable_amount: taxable, vat_amount: vatAmount });
  }
  return {
    lines,
    vat,
    total: lines.reduce((s, l) => s + l.amount, 0),
    total_vat: vat.reduce((s, v) => s + v.vat_amount, 0),
  };
}

/** Shares `taxable` among lines in proportion to their amounts, whole krónur, by largest remainder. */
function allocate(taxable: number, lines: { amount: number; net_amount: number }[]) {
  const gross = lines.reduce((s, l) => s + l.amount, 0);
  if (gross === 0) {
    for (const l of lines) l.net_amount = 0;
    if (lines[0]) lines[0].net_amount = taxable;
    return;
  }
  const exact = lines.map((l) => new Decimal(taxable).mul(l.amount).div(gross));
  const floors = exact.map((e) => e.floor().toNumber());
  let left = taxable - floors.reduce((s, f) => s + f, 0);
  const order = exact
    .map((e, i) => ({ i, frac: e.minus(e.floor()).toNumber() }))
    .sort((a, b) => b.frac - a.frac || a.i - b.i);
  for (const { i } of order) {
    if (left <= 0) break;
    floors[i]! += 1;
    left -= 1;
  }
  lines.forEach((l, i) => (l.net_amount = floors[i]!));
}

/**
 * The lines of a credit note for `amount` of an invoice: the whole invoice's lines when all of it is
 * credited, otherwise the amount shared among the invoice's VAT rates in proportion to them.
 */
export function creditLines(invoice: InvoiceAmounts, amount: number, label: string): SaleLine[] {
  if (amount === invoice.total)
    return invoice.lines.map(({ description, quantity, unit_amount, vat_rate }) => ({
      description,
      quantity,
      unit_amount,
      vat_rate,
    }));
  const parts = invoice.vat.map((v) => ({ rate: v.rate, amount: v.amount, net_amount: 0 }));
  allocate(amount, parts);
  return parts
    .filter((p) => p.net_amount !== 0)
    .map((p) => ({ description: label, quantity: 1, unit_amount: p.net_amount, vat_rate: p.rate }));
}

/** The printed number: a test document's is marked as such, so it is never mistaken for a live one. */
export function documentNumber(sequence: number, livemode: boolean): string {
  const digits = String(sequence).padStart(6, '0');
  return livemode ? digits : `TEST-${digits}`;
}
