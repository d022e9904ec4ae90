import Decimal from 'decimal.js';
import { vatOf, type VatRate } from './vat';
import { effectiveVatCategory, type VatCategory } from './vat-category';

/** A line as sold: VAT-inclusive ISK, as every amount in Skil (spec §2.1). */
export interface SaleLine {
  description: string;
  quantity: number;
  /** Price per unit with VAT; negative for a discount or a credit. */
  unit_amount: number;
  vat_rate: VatRate;
  /**
   * The category the line is invoiced under, as `effectiveVatCategory` gave it when issued
   * (decision 0234); absent on invoices issued before, read with `lineCategory`.
   */
  vat_category?: VatCategory;
  vat_exemption_reason?: string | null;
  vat_exemption_reason_code?: string | null;
}

export interface InvoiceLine extends SaleLine {
  /** quantity × unit_amount, with VAT. */
  amount: number;
  /** The line's share of its rate's amount without VAT; the shares add up to the rate's taxable amount. */
  net_amount: number;
}

/** The VAT breakdown of an invoice: one group per category and rate (EN 16931 BG-23). */
export interface VatPerRate {
  rate: VatRate;
  /** Absent on invoices issued before decision 0234: read with `groupCategory`. */
  category?: VatCategory;
  /** For E and O: why (BR-E-10, BR-O-10); the lines' reasons, each once. */
  exemption_reason?: string | null;
  exemption_reason_code?: string | null;
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
  const key = (l: SaleLine) => `${l.vat_rate}|${l.vat_category ?? ''}`;
  const groups = [...new Map(lines.map((l) => [key(l), l])).values()].sort(
    (a, b) => a.vat_rate - b.vat_rate || (a.vat_category ?? '').localeCompare(b.vat_category ?? ''),
  );
  const vat: VatPerRate[] = [];
  for (const first of groups) {
    const rate = first.vat_rate;
    const atRate = lines.filter((l) => key(l) === key(first));
    const amount = atRate.reduce((s, l) => s + l.amount, 0);
    const vatAmount = amount >= 0 ? vatOf(amount, rate) : -vatOf(-amount, rate);
    const taxable = amount - vatAmount;
    allocate(taxable, atRate);
    vat.push({
      rate,
      ...(first.vat_category && { category: first.vat_category, ...exemptionOf(atRate) }),
      amount,
      taxable_amount: taxable,
      vat_amount: vatAmount,
    });
  }
  return {
    lines,
    vat,
    total: lines.reduce((s, l) => s + l.amount, 0),
    total_vat: vat.reduce((s, v) => s + v.vat_amount, 0),
  };
}

/**
 * One exemption for a VAT group, which EN 16931 allows one of (BR-E-01: a single E breakdown): the
 * code when the lines share one, and every distinct reason text once (codes left out of the code
 * field among them, so none is lost).
 */
function exemptionOf(lines: readonly SaleLine[]): {
  exemption_reason: string | null;
  exemption_reason_code: string | null;
} {
  const codes = [
    ...new Set(lines.flatMap((l) => (l.vat_exemption_reason_code ? [l.vat_exemption_reason_code] : []))),
  ];
  const texts = [...new Set(lines.flatMap((l) => (l.vat_exemption_reason ? [l.vat_exemption_reason] : [])))];
  const code = codes.length === 1 ? codes[0]! : null;
  const reason = [...texts, ...(code === null ? codes : [])].join('; ');
  return { exemption_reason: reason === '' ? null : reason, exemption_reason_code: code };
}

/** The category of a stored line: its own, or for a line issued before decision 0234 the derived one. */
export const lineCategory = (
  l: Pick<SaleLine, 'vat_rate' | 'vat_category'>,
  seller: { vat_number: string | null },
) => l.vat_category ?? effectiveVatCategory(l.vat_rate, null, seller);

/** The category of a stored VAT group, likewise. */
export const groupCategory = (
  v: Pick<VatPerRate, 'rate' | 'category'>,
  seller: { vat_number: string | null },
) => v.category ?? effectiveVatCategory(v.rate, null, seller);

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
    return invoice.lines.map((l) => ({
      description: l.description,
      quantity: l.quantity,
      unit_amount: l.unit_amount,
      vat_rate: l.vat_rate,
      ...(l.vat_category && {
        vat_category: l.vat_category,
        vat_exemption_reason: l.vat_exemption_reason ?? null,
        vat_exemption_reason_code: l.vat_exemption_reason_code ?? null,
      }),
    }));
  const parts = invoice.vat.map((v) => ({ v, amount: v.amount, net_amount: 0 }));
  allocate(amount, parts);
  return parts
    .filter((p) => p.net_amount !== 0)
    .map(({ v, net_amount }) => ({
      description: label,
      quantity: 1,
      unit_amount: net_amount,
      vat_rate: v.rate,
      ...(v.category && {
        vat_category: v.category,
        vat_exemption_reason: v.exemption_reason ?? null,
        vat_exemption_reason_code: v.exemption_reason_code ?? null,
      }),
    }));
}

/** The printed number: a test document's is marked as such, so it is never mistaken for a live one. */
export function documentNumber(sequence: number, livemode: boolean): string {
  const digits = String(sequence).padStart(6, '0');
  return livemode ? digits : `TEST-${digits}`;
}
