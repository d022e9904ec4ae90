import { z } from 'zod';
import type {
  PosDeviceRow,
  PosRefundRow,
  PosRegisterRow,
  PosSaleLineRow,
  PosSalePaymentRow,
  PosSaleRow,
  PosShiftRow,
  PosStaffRow,
  PosTerminalRow,
  PosZReportRow,
} from '../../db/pos';
import { signedInStaffId, type PosReportTotals } from '../../domain/pos';
import { unix } from '../../domain/unix-time';

// The POS objects (issue 19): each schema beside its one presenter.

const VatRate = z.union([z.literal(0), z.literal(11), z.literal(24)]);

export const PosRegisterSchema = z.object({
  id: z.string(),
  object: z.literal('pos.register'),
  livemode: z.boolean(),
  name: z.string(),
  location: z.string().nullable(),
  created_at: z.number(),
});
export const presentRegister = (r: PosRegisterRow) => ({
  id: r.id,
  object: 'pos.register' as const,
  livemode: r.livemode,
  name: r.name,
  location: r.location,
  created_at: unix(r.created_at),
});

export const PosPairingCodeSchema = z.object({
  object: z.literal('pos.pairing_code'),
  register: z.string(),
  code: z.string().describe('Typed once on the till; single use'),
  expires_at: z.number(),
});

export const PosDeviceSchema = z.object({
  id: z.string(),
  object: z.literal('pos.device'),
  livemode: z.boolean(),
  register: z.string(),
  credential: z
    .string()
    .nullable()
    .describe('The device credential, shown once at pairing: it opens this register’s POS actions only'),
  signed_in_staff: z.string().nullable(),
  created_at: z.number(),
});
export const presentDevice = (d: PosDeviceRow, credential: string | null = null) => ({
  id: d.id,
  object: 'pos.device' as const,
  livemode: d.livemode,
  register: d.register_id,
  credential,
  signed_in_staff: signedInStaffId(d),
  created_at: unix(d.created_at),
});

export const PosStaffSchema = z.object({
  id: z.string(),
  object: z.literal('pos.staff'),
  livemode: z.boolean(),
  name: z.string(),
  role: z.enum(['cashier', 'manager']),
  active: z.boolean(),
  locked_until: z.number().nullable().describe('Set while locked after repeated wrong PINs'),
  created_at: z.number(),
});
export const presentStaff = (s: PosStaffRow) => ({
  id: s.id,
  object: 'pos.staff' as const,
  livemode: s.livemode,
  name: s.name,
  role: s.role,
  active: s.active,
  locked_until: s.locked_until && s.locked_until > new Date() ? unix(s.locked_until) : null,
  created_at: unix(s.created_at),
});

export const PosTerminalAnnouncementSchema = z.object({
  object: z.literal('pos.terminal_announcement'),
  registration_code: z.string(),
  expires_at: z.number(),
});

export const PosTerminalSchema = z.object({
  id: z.string(),
  object: z.literal('pos.terminal'),
  livemode: z.boolean(),
  register: z.string(),
  label: z.string().nullable(),
  device_type: z.enum(['simulated_reader', 'tap_to_pay']),
  created_at: z.number(),
});
export const presentTerminal = (t: PosTerminalRow) => ({
  id: t.id,
  object: 'pos.terminal' as const,
  livemode: t.livemode,
  register: t.register_id,
  label: t.label,
  device_type: t.device_type,
  created_at: unix(t.created_at),
});

export const PosShiftSchema = z.object({
  id: z.string(),
  object: z.literal('pos.shift'),
  livemode: z.boolean(),
  register: z.string(),
  status: z.enum(['open', 'closed']),
  opened_by: z.string(),
  opening_float: z.number().int(),
  opened_at: z.number(),
  closed_by: z.string().nullable(),
  closed_at: z.number().nullable(),
  expected_cash: z.number().int().nullable(),
  counted_cash: z.number().int().nullable(),
  difference: z.number().int().nullable().describe('counted − expected'),
});
export const presentShift = (s: PosShiftRow) => ({
  id: s.id,
  object: 'pos.shift' as const,
  livemode: s.livemode,
  register: s.register_id,
  status: s.closed_at ? ('closed' as const) : ('open' as const),
  opened_by: s.opened_by,
  opening_float: s.opening_float,
  opened_at: unix(s.opened_at),
  closed_by: s.closed_by,
  closed_at: unix(s.closed_at),
  expected_cash: s.expected_cash,
  counted_cash: s.counted_cash,
  difference: s.counted_cash !== null && s.expected_cash !== null ? s.counted_cash - s.expected_cash : null,
});

export const PosDrawerEventSchema = z.object({
  id: z.string(),
  object: z.literal('pos.drawer_event'),
  shift: z.string(),
  staff: z.string(),
  kind: z.enum(['paid_in', 'paid_out', 'no_sale']),
  amount: z.number().int(),
  reason: z.string().nullable(),
  created_at: z.number(),
});

const VatLineSchema = z.object({
  rate: VatRate,
  gross: z.number().int(),
  vat: z.number().int(),
  net: z.number().int(),
});

export const PosSaleSchema = z.object({
  id: z.string(),
  object: z.literal('pos.sale'),
  livemode: z.boolean(),
  register: z.string(),
  shift: z.string(),
  staff: z.string(),
  number: z.number().int().describe('Consecutive per register'),
  total: z.number().int(),
  discount: z.number().int(),
  change_due: z.number().int(),
  amount_refunded: z.number().int(),
  lines: z.array(
    z.object({
      product: z.string().nullable(),
      variant: z.string().nullable(),
      description: z.string(),
      quantity: z.number().int(),
      unit_amount: z.number().int(),
      discount_amount: z.number().int(),
      vat_rate: VatRate,
      amount: z.number().int(),
    }),
  ),
  payments: z.array(
    z.object({
      method: z.enum(['cash', 'card']),
      amount: z.number().int(),
      tendered: z.number().int().nullable(),
      payment_intent: z.string().nullable(),
    }),
  ),
  vat: z.array(VatLineSchema),
  z_report: z.string().nullable(),
  created_at: z.number(),
});
export function presentSale(
  s: PosSaleRow,
  lines: PosSaleLineRow[],
  payments: PosSalePaymentRow[],
  vat: { rate: 0 | 11 | 24; gross: number; vat: number; net: number }[],
) {
  return {
    id: s.id,
    object: 'pos.sale' as const,
    livemode: s.livemode,
    register: s.register_id,
    shift: s.shift_id,
    staff: s.staff_id,
    number: s.number,
    total: s.total,
    discount: s.discount,
    change_due: s.change_due,
    amount_refunded: s.amount_refunded,
    lines: lines.map((l) => ({
      product: l.product_id,
      variant: l.variant_id,
      description: l.description,
      quantity: l.quantity,
      unit_amount: l.unit_amount,
      discount_amount: l.discount_amount,
      vat_rate: l.vat_rate,
      amount: l.amount,
    })),
    payments: payments.map((p) => ({
      method: p.method,
      amount: p.amount,
      tendered: p.tendered,
      payment_intent: p.payment_intent_id,
    })),
    vat,
    z_report: s.z_report_id,
    created_at: unix(s.created_at),
  };
}

export const PosReceiptSchema = z.object({
  object: z.literal('pos.receipt'),
  sale: z.string(),
  number: z.string(),
  total: z.number().int(),
  vat: z.array(VatLineSchema),
  subject: z.string(),
  text: z.string(),
  html: z.string().describe('The printable 80 mm page'),
});

export const PosRefundSchema = z.object({
  id: z.string(),
  object: z.literal('pos.refund'),
  livemode: z.boolean(),
  sale: z.string(),
  register: z.string(),
  staff: z.string(),
  method: z.enum(['cash', 'card']),
  amount: z.number().int(),
  refund: z.string().nullable().describe('The card refund (re_…), for a refund to card'),
  created_at: z.number(),
});
export const presentRefund = (r: PosRefundRow) => ({
  id: r.id,
  object: 'pos.refund' as const,
  livemode: r.livemode,
  sale: r.sale_id,
  register: r.register_id,
  staff: r.staff_id,
  method: r.method,
  amount: r.amount,
  refund: r.refund_id,
  created_at: unix(r.created_at),
});

const TotalsSchema = z.object({
  sales_count: z.number().int(),
  gross_sales: z.number().int(),
  discounts: z.number().int(),
  refunds: z.object({
    count: z.number().int(),
    amount: z.number().int(),
    cash: z.number().int(),
    card: z.number().int(),
  }),
  net_sales: z.number().int(),
  payments: z.object({ cash: z.number().int(), card: z.number().int() }),
  vat: z.array(VatLineSchema),
  staff: z.array(
    z.object({
      staff: z.string(),
      name: z.string(),
      sales_count: z.number().int(),
      sales: z.number().int(),
      refunds: z.number().int(),
    }),
  ),
  drawer: z.object({
    no_sale_openings: z.number().int(),
    paid_in: z.number().int(),
    paid_out: z.number().int(),
  }),
  cash: z.object({
    opening_float: z.number().int(),
    expected: z.number().int(),
    counted: z.number().int().nullable(),
    difference: z.number().int().nullable(),
  }),
});

export const PosXReportSchema = TotalsSchema.extend({
  object: z.literal('pos.x_report'),
  register: z.string(),
  period_start: z.number().nullable(),
  generated_at: z.number(),
  grand_total: z.number().int().describe('Net sales since the register began, never reset'),
});

export const PosZReportSchema = TotalsSchema.extend({
  id: z.string(),
  object: z.literal('pos.z_report'),
  livemode: z.boolean(),
  register: z.string(),
  number: z.number().int().describe('Consecutive per register, from 1'),
  period_start: z.number().nullable(),
  period_end: z.number(),
  grand_total: z.number().int().describe('Net sales since the register began, never reset'),
  made_by: z.string(),
  created_at: z.number(),
});
export function presentZReport(z: PosZReportRow) {
  const totals = z.report as unknown as PosReportTotals;
  return {
    ...totals,
    id: z.id,
    object: 'pos.z_report' as const,
    livemode: z.livemode,
    register: z.register_id,
    number: z.number,
    period_start: unix(z.period_start),
    period_end: unix(z.period_end),
    grand_total: z.grand_total,
    made_by: z.made_by,
    created_at: unix(z.created_at),
  };
}
