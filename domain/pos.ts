import { createHmac, randomInt, timingSafeEqual } from 'node:crypto';
import { vatOf, type VatRate } from './vat';
import { groupByVatCategory, tillVatCategory, type VatCategory } from './vat-category';

/** A staff PIN: 4 to 8 digits (decision 0127). */
export const PIN_PATTERN = /^[0-9]{4,8}$/;
/** Wrong PINs in a row that lock a staff member out, and for how long (decision 0127). */
export const PIN_LOCKOUT = { attempts: 5, minutes: 15 } as const;
/** How long a PIN sign-in on a till lasts: one long shift, then the PIN is asked again (0150). */
export const PIN_SESSION_HOURS = 12;

/** The person signed in on a till, while their PIN session lasts; null when none or it has ended. */
export function signedInStaffId(
  device: { signed_in_staff_id: string | null; signed_in_at: Date | null },
  now: Date = new Date(),
): string | null {
  if (!device.signed_in_staff_id || !device.signed_in_at) return null;
  return now.getTime() - device.signed_in_at.getTime() < PIN_SESSION_HOURS * 3_600_000
    ? device.signed_in_staff_id
    : null;
}

/** How long a register's pairing code and a terminal's registration code may be used. */
export const PAIRING_CODE_MINUTES = 10;
export const TERMINAL_ANNOUNCEMENT_HOURS = 24;

const CODE_ALPHABET = 'BCDFGHJKLMNPQRSTVWXZ23456789';

/** A code a person reads off one screen and types on another: 8 characters, no vowels or 0/1. */
export function pairingCode(): string {
  let out = '';
  for (let i = 0; i < 8; i++) out += CODE_ALPHABET[randomInt(CODE_ALPHABET.length)];
  return out;
}

/** A typed code as stored: upper case, spaces and dashes dropped. */
export function normalizeCode(code: string): string {
  return code.toUpperCase().replace(/[\s-]/g, '');
}

/**
 * A PIN's keyed hash, per merchant and mode: HMAC-SHA256 under a server key, so a copy of the
 * database does not give the PINs away to a 10^8 brute force, and two staff of one merchant cannot
 * share a PIN (a unique constraint on the hash).
 */
export function pinHash(key: string, scope: { merchantId: string; livemode: boolean }, pin: string): string {
  return createHmac('sha256', `skil-pos-pin:${key}`)
    .update(`${scope.merchantId}:${scope.livemode ? 'live' : 'test'}:${pin}`)
    .digest('base64url');
}

/** Constant-time comparison of two PIN hashes. */
export function samePinHash(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export type PosPaymentMethod = 'cash' | 'card';

/** What a till's reports are computed from: the sales, refunds, drawer events and shifts of a period. */
export interface ReportSource {
  sales: {
    id: string;
    staff_id: string;
    total: number;
    discount: number;
    lines: { vat_rate: VatRate; vat_category?: VatCategory | null; amount: number }[];
    payments: { method: PosPaymentMethod; amount: number }[];
  }[];
  refunds: { staff_id: string; method: PosPaymentMethod; amount: number }[];
  drawer: { kind: 'paid_in' | 'paid_out' | 'no_sale'; amount: number }[];
  shifts: { id: string; opening_float: number; counted_cash: number | null; expected_cash: number | null }[];
  staffNames: Map<string, string>;
}

export interface PosReportTotals {
  sales_count: number;
  gross_sales: number;
  discounts: number;
  refunds: { count: number; amount: number; cash: number; card: number };
  net_sales: number;
  payments: { cash: number; card: number };
  /** Per VAT category and rate (decision 0234). */
  vat: { rate: VatRate; category: VatCategory; gross: number; vat: number; net: number }[];
  staff: { staff: string; name: string; sales_count: number; sales: number; refunds: number }[];
  drawer: { no_sale_openings: number; paid_in: number; paid_out: number };
  cash: { opening_float: number; expected: number; counted: number | null; difference: number | null };
}

/** The X/Z figures of a period (decision 0128); the same sums whether running (X) or closing (Z). */
export function reportTotals(src: ReportSource): PosReportTotals {
  const sum = (xs: number[]) => xs.reduce((s, x) => s + x, 0);
  const staffIds = [...new Set([...src.sales.map((s) => s.staff_id), ...src.refunds.map((r) => r.staff_id)])];
  const pay = (m: PosPaymentMethod) =>
    sum(src.sales.flatMap((s) => s.payments.filter((p) => p.method === m).map((p) => p.amount)));
  const refund = (m: PosPaymentMethod) => sum(src.refunds.filter((r) => r.method === m).map((r) => r.amount));
  const gross = sum(src.sales.map((s) => s.total));
  const refunded = sum(src.refunds.map((r) => r.amount));
  const drawer = (k: 'paid_in' | 'paid_out') =>
    sum(src.drawer.filter((d) => d.kind === k).map((d) => d.amount));
  const closed = src.shifts.every((s) => s.counted_cash !== null);
  const openingFloat = sum(src.shifts.map((s) => s.opening_float));
  const expected = openingFloat + pay('cash') + drawer('paid_in') - drawer('paid_out') - refund('cash');
  const counted = closed && src.shifts.length > 0 ? sum(src.shifts.map((s) => s.counted_cash ?? 0)) : null;
  return {
    sales_count: src.sales.length,
    gross_sales: gross,
    discounts: sum(src.sales.map((s) => s.discount)),
    refunds: { count: src.refunds.length, amount: refunded, cash: refund('cash'), card: refund('card') },
    net_sales: gross - refunded,
    payments: { cash: pay('cash'), card: pay('card') },
    vat: groupByVatCategory(
      src.sales.flatMap((s) =>
        s.lines.map((l) => ({
          rate: l.vat_rate,
          category: tillVatCategory(l.vat_rate, l.vat_category),
          amount: l.amount,
        })),
      ),
    ).map(({ rate, category, gross: g }) => ({
      rate,
      category,
      gross: g,
      vat: vatOf(g, rate),
      net: g - vatOf(g, rate),
    })),
    staff: staffIds.map((id) => ({
      staff: id,
      name: src.staffNames.get(id) ?? id,
      sales_count: src.sales.filter((s) => s.staff_id === id).length,
      sales: sum(src.sales.filter((s) => s.staff_id === id).map((s) => s.total)),
      refunds: sum(src.refunds.filter((r) => r.staff_id === id).map((r) => r.amount)),
    })),
    drawer: {
      no_sale_openings: src.drawer.filter((d) => d.kind === 'no_sale').length,
      paid_in: drawer('paid_in'),
      paid_out: drawer('paid_out'),
    },
    cash: {
      opening_float: openingFloat,
      expected,
      counted,
      difference: counted === null ? null : counted - expected,
    },
  };
}
