import { creditLines, invoiceAmounts } from './invoices';
import { vatOf, type VatRate } from './vat';
import { vatBox, type VatCategory } from './vat-box';

/** What one document adds to a VAT return (decision 0238); credits are negative. */
export interface VatFigures {
  /** Box A: sales at 24 % without VAT. */
  A: number;
  /** Box B: sales at 11 % without VAT. */
  B: number;
  /** Box C: zero-rated sales (art. 12 of the VAT Act). */
  C: number;
  /** Box D: output VAT, 24 % and 11 % together. */
  D: number;
  vat_24: number;
  vat_11: number;
  /** Exempt sales and sales outside the scope of VAT: not on the return, shown beside it. */
  out_of_scope: number;
}

export const ZERO_FIGURES: VatFigures = { A: 0, B: 0, C: 0, D: 0, vat_24: 0, vat_11: 0, out_of_scope: 0 };

/** A document as its figures are computed: its lines without VAT and its VAT per rate. */
export interface VatDocument {
  lines: { vat_rate: VatRate; vat_category?: VatCategory | null; net_amount: number }[];
  vat: { rate: VatRate; vat_amount: number }[];
  /** -1 for a credit note or a refund: it reduces the period it is issued in. */
  sign: 1 | -1;
}

/** A document's figures; every line goes to a box through `vatBox` alone. */
export function documentFigures(doc: VatDocument, seller: { registered: boolean }): VatFigures {
  const f = { ...ZERO_FIGURES };
  for (const l of doc.lines) f[vatBox(l, seller)] += doc.sign * l.net_amount;
  for (const v of doc.vat) {
    if (v.rate === 24) f.vat_24 += doc.sign * v.vat_amount;
    if (v.rate === 11) f.vat_11 += doc.sign * v.vat_amount;
  }
  f.D = f.vat_24 + f.vat_11;
  return f;
}

/** Adds figures, in place. */
export function addFigures(into: VatFigures, f: VatFigures): VatFigures {
  for (const k of Object.keys(into) as (keyof VatFigures)[]) into[k] += f[k];
  return into;
}

type TillLine = { vat_rate: VatRate; vat_category?: VatCategory | null; amount: number };

/**
 * The category of a till sale's lines at one rate: a sale holds one kind of line (decision 0234),
 * so its lines at a rate share their category; null (derived) when they name none or differ.
 */
function categoryAt(lines: readonly TillLine[], rate: VatRate): VatCategory | null {
  const found = new Set(lines.filter((l) => l.vat_rate === rate).map((l) => l.vat_category ?? null));
  return found.size === 1 ? [...found][0]! : null;
}

/**
 * A till sale's document: VAT once per rate from the rate's VAT-inclusive sum, as its receipt
 * shows it (decision 0129); its lines' category (E, O) says whether the sale is on the return.
 */
export function posSaleDocument(lines: readonly TillLine[]): VatDocument {
  const gross = new Map<VatRate, number>();
  for (const l of lines) gross.set(l.vat_rate, (gross.get(l.vat_rate) ?? 0) + l.amount);
  const rates = [...gross.keys()].sort((a, b) => a - b);
  return {
    sign: 1,
    lines: rates.map((r) => ({
      vat_rate: r,
      vat_category: categoryAt(lines, r),
      net_amount: gross.get(r)! - vatOf(gross.get(r)!, r),
    })),
    vat: rates.map((r) => ({ rate: r, vat_amount: vatOf(gross.get(r)!, r) })),
  };
}

/**
 * A till refund's document: the refunded amount shared among the sale's VAT rates in proportion to
 * them, as a credit note of an invoice is (domain/invoices.ts, creditLines), so a full refund
 * reverses the sale exactly.
 */
export function posRefundDocument(saleLines: readonly TillLine[], amount: number): VatDocument {
  const sale = invoiceAmounts(
    saleLines.map((l) => ({ description: '', quantity: 1, unit_amount: l.amount, vat_rate: l.vat_rate })),
  );
  const credit = invoiceAmounts(creditLines(sale, amount, ''));
  return {
    sign: -1,
    lines: credit.vat.map((v) => ({
      vat_rate: v.rate,
      vat_category: categoryAt(saleLines, v.rate),
      net_amount: v.taxable_amount,
    })),
    vat: credit.vat.map((v) => ({ rate: v.rate, vat_amount: v.vat_amount })),
  };
}
