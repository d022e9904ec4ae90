import Decimal from 'decimal.js';
import type { Locale } from '../../domain/locale';
import { vatOf, type VatRate } from '../../domain/vat';
import { groupByVatCategory, tillVatCategory, type VatCategory } from '../../domain/vat-category';

/**
 * What a receipt (or an invoice) is made from: the seller, the lines with their VAT rate, and how it
 * was paid. Amounts are VAT-inclusive whole ISK, as every price in Skil is (spec §2.1). The point of
 * sale makes one from a sale, the invoices one from an invoice; both render it through this service.
 */
export interface ReceiptInput {
  /** What the document is: a sale's receipt, a refund's, or an invoice. */
  kind: 'receipt' | 'refund' | 'invoice';
  /** Its number as printed (a sale number per register, an invoice number). */
  number: string;
  issuedAt: Date;
  locale: Locale;
  seller: { name: string; kennitala?: string | null; vatNumber?: string | null; address?: string | null };
  buyer?: { name?: string | null; email?: string | null; kennitala?: string | null } | null;
  lines: ReceiptLineInput[];
  payments?: ReceiptPayment[];
  /** Lines printed under the totals (a register and cashier, a due date, terms). */
  notes?: string[];
}

export interface ReceiptLineInput {
  description: string;
  quantity: number;
  /** VAT-inclusive price of one unit. */
  unitAmount: number;
  /** VAT-inclusive discount on the whole line (not per unit); default 0. */
  discountAmount?: number;
  vatRate: VatRate;
  /** S, Z, E or O (decision 0234); omitted means derived: Z at 0 %, S otherwise. */
  vatCategory?: VatCategory | null;
}

export interface ReceiptPayment {
  method: 'cash' | 'card' | 'bank_claim' | 'bank_transfer';
  amount: number;
  /** Cash handed over, when more than the amount (the difference is change). */
  tendered?: number | null;
  cardBrand?: string | null;
  cardLast4?: string | null;
}

export interface ReceiptLine extends Required<Omit<ReceiptLineInput, 'vatCategory'>> {
  vatCategory: VatCategory;
  /** quantity × unit − discount, VAT-inclusive. */
  amount: number;
}

export interface VatLine {
  rate: VatRate;
  /** Zero-rated, exempt and outside-the-scope takings at 0 % are separate lines (decision 0234). */
  category: VatCategory;
  /** VAT-inclusive amount of the lines at this rate. */
  gross: number;
  vat: number;
  net: number;
}

export interface Receipt extends Omit<ReceiptInput, 'lines'> {
  lines: ReceiptLine[];
  subtotal: number;
  discount: number;
  total: number;
  /** One line per VAT category and rate present, rate ascending; VAT rounded half up once per line. */
  vat: VatLine[];
  vatTotal: number;
  change: number;
}

/** Line amounts, totals and the VAT per rate of a receipt; refuses amounts that are not whole ISK. */
export function buildReceipt(input: ReceiptInput): Receipt {
  const lines = input.lines.map((l): ReceiptLine => {
    const discountAmount = l.discountAmount ?? 0;
    for (const n of [l.quantity, l.unitAmount, discountAmount])
      if (!Number.isSafeInteger(n) || n < 0) throw new RangeError('receipt amounts are whole numbers ≥ 0');
    const gross = new Decimal(l.unitAmount).mul(l.quantity).toNumber();
    if (discountAmount > gross) throw new RangeError('a line discount exceeds the line');
    return {
      ...l,
      vatCategory: tillVatCategory(l.vatRate, l.vatCategory),
      discountAmount,
      amount: gross - discountAmount,
    };
  });
  const vat = groupByVatCategory(
    lines.map((l) => ({ rate: l.vatRate, category: l.vatCategory, amount: l.amount })),
  ).map(({ category, rate, gross }) => {
    const v = vatOf(gross, rate);
    return { rate, category, gross, vat: v, net: gross - v };
  });
  const total = lines.reduce((s, l) => s + l.amount, 0);
  const discount = lines.reduce((s, l) => s + l.discountAmount, 0);
  const change = (input.payments ?? []).reduce(
    (s, p) => s + (p.method === 'cash' && p.tendered ? Math.max(0, p.tendered - p.amount) : 0),
    0,
  );
  return {
    ...input,
    lines,
    subtotal: total + discount,
    discount,
    total,
    vat,
    vatTotal: vat.reduce((s, v) => s + v.vat, 0),
    change,
  };
}
