import { z } from 'zod';
import type { PosSaleLineRow, PosSalePaymentRow, PosSaleRow } from '../../db/pos-sales';
import { unix } from '../../domain/unix-time';
import { buildReceipt } from '../receipts';
import { VatLineSchema, VatRateSchema } from './vat-lines';
import { VatTreatmentSchema } from '../vat-treatment-object';

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
      vat_rate: VatRateSchema,
      ...VatTreatmentSchema.shape,
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
  customer: z.string().nullable().describe('The business buyer named at the till (decision 0235)'),
  invoice: z.string().nullable().describe("The sale's invoice when sold to a business buyer"),
  created_at: z.number(),
});
/** A sale with its lines and payment parts; its VAT per rate is the receipt's, worked out the one way. */
export function presentSale(
  s: PosSaleRow,
  lines: PosSaleLineRow[],
  payments: PosSalePaymentRow[],
  invoiceId: string | null = null,
) {
  const { vat } = buildReceipt({
    kind: 'receipt',
    number: String(s.number),
    issuedAt: s.created_at,
    locale: 'is',
    seller: { name: '' },
    lines: lines.map((x) => ({
      description: x.description,
      quantity: x.quantity,
      unitAmount: x.unit_amount,
      discountAmount: x.discount_amount,
      vatRate: x.vat_rate,
      vatCategory: x.vat_category,
    })),
  });
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
      vat_category: l.vat_category,
      vat_exemption_reason: l.vat_exemption_reason,
      vat_exemption_reason_code: l.vat_exemption_reason_code,
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
    customer: s.customer_id ?? null,
    invoice: invoiceId,
    created_at: unix(s.created_at),
  };
}
