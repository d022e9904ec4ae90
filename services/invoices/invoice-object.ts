import { z } from 'zod';
import type { CreditNoteRow, InvoiceRow } from '../../db/invoices';
import type { InvoiceDeliveryRow } from '../../db/invoice-deliveries';
import { unix } from '../../domain/unix-time';
import { einvoiceRefusal } from '../../domain/einvoice-parties';
import {
  groupCategory,
  lineCategory,
  type InvoiceLine,
  type VatPerRate as VatGroup,
} from '../../domain/invoices';
import { VAT_CATEGORIES } from '../../domain/vat-category';

const Line = z.object({
  description: z.string(),
  quantity: z.number().int(),
  unit_amount: z.number().int().describe('Price per unit with VAT'),
  amount: z.number().int().describe('quantity × unit_amount, with VAT'),
  net_amount: z.number().int().describe("The line's amount without VAT"),
  vat_rate: z.number().int().describe('0, 11 or 24'),
  vat_category: z
    .enum(VAT_CATEGORIES)
    .describe('S standard, Z zero rated, E exempt, O outside the scope of VAT (decision 0234)'),
  vat_exemption_reason: z.string().nullable(),
  vat_exemption_reason_code: z.string().nullable().describe('A VATEX code'),
});
const VatPerRate = z.object({
  rate: z.number().int(),
  category: z.enum(VAT_CATEGORIES).describe('One group per category and rate (decision 0234)'),
  exemption_reason: z.string().nullable().describe('For E and O: why no VAT is charged'),
  exemption_reason_code: z.string().nullable(),
  amount: z.number().int().describe('Amount with VAT of the lines at this rate'),
  taxable_amount: z.number().int(),
  vat_amount: z.number().int(),
});
const Address = z.object({
  street: z.string(),
  city: z.string(),
  postalCode: z.string(),
  country: z.string(),
});

const Delivery = z
  .object({
    method: z
      .enum(['peppol', 'email'])
      .describe("The customer's `invoice_settings.delivery_method` when the invoice was issued"),
    status: z
      .enum(['pending', 'sent', 'delivered', 'failed'])
      .describe('`sent`: the access point has it; `delivered` and `failed` are final'),
    receiver: z
      .string()
      .nullable()
      .describe('The Peppol participant id (`0196:<kennitala>`) or e-mail address it went to'),
    failure_reasons: z
      .array(z.object({ rule: z.string(), message: z.string() }))
      .describe(
        "Why it was not delivered: the validation artefacts' rule ids, or the access point's own code",
      ),
    finished_at: z.number().nullable(),
  })
  .nullable()
  .describe('How the invoice reaches the buyer (decision 0217); null when the customer chose none');

/** A line with its category; a line issued before decision 0234 gets the derived one. */
function presentLine(l: InvoiceLine, seller: { vat_number: string | null }) {
  return {
    description: l.description,
    quantity: l.quantity,
    unit_amount: l.unit_amount,
    amount: l.amount,
    net_amount: l.net_amount,
    vat_rate: l.vat_rate,
    vat_category: lineCategory(l, seller),
    vat_exemption_reason: l.vat_exemption_reason ?? null,
    vat_exemption_reason_code: l.vat_exemption_reason_code ?? null,
  };
}

function presentVatGroup(v: VatGroup, seller: { vat_number: string | null }) {
  return {
    rate: v.rate,
    category: groupCategory(v, seller),
    exemption_reason: v.exemption_reason ?? null,
    exemption_reason_code: v.exemption_reason_code ?? null,
    amount: v.amount,
    taxable_amount: v.taxable_amount,
    vat_amount: v.vat_amount,
  };
}

export const InvoiceSchema = z.object({
  id: z.string(),
  object: z.literal('invoice'),
  livemode: z.boolean(),
  number: z.string().describe('The printed number; test documents read TEST-…'),
  sequence: z
    .number()
    .int()
    .describe("Position in the merchant's one unbroken sequence of this environment (decision 0139)"),
  status: z.enum(['paid', 'open']),
  currency: z.literal('ISK'),
  payment_intent: z
    .string()
    .nullable()
    .describe('The payment; for an invoice collected by krafa, null until the krafa is paid'),
  claim: z.string().nullable().describe('The krafa that collects this invoice (decision 0211)'),
  pos_sale: z.string().nullable().describe('The till sale it invoices (decision 0235)'),
  customer: z.string().nullable(),
  subscription: z.string().nullable(),
  checkout_session: z.string().nullable(),
  seller: z.object({
    name: z.string(),
    kennitala: z.string().nullable(),
    vat_number: z.string().nullable(),
    address: Address.nullable(),
  }),
  buyer: z.object({
    name: z.string().nullable(),
    email: z.string().nullable(),
    kennitala: z.string().nullable(),
  }),
  lines: z.array(Line),
  vat: z.array(VatPerRate).describe('VAT per rate, computed once per rate from its lines'),
  total: z.number().int(),
  total_vat: z.number().int(),
  amount_credited: z.number().int(),
  issued_at: z.number(),
  supplied_at: z.number(),
  due_date: z.string().nullable().describe('Gjalddagi, when paid by krafa'),
  final_due_date: z.string().nullable().describe('Eindagi, when paid by krafa'),
  payment_reference: z.string(),
  einvoice: z
    .boolean()
    .describe(
      'Whether it has a Peppol e-invoice (GET …/ubl): a business buyer with kennitala and address, and a seller with both (decision 0210)',
    ),
  delivery: Delivery,
  created_at: z.number(),
});

export type InvoiceObject = z.output<typeof InvoiceSchema>;

/** A delivery as the invoice and the credit note present it (decisions 0219, 0237). */
function presentDelivery(delivery: InvoiceDeliveryRow | null | undefined) {
  return delivery
    ? {
        method: delivery.method,
        status: delivery.status,
        receiver: delivery.receiver,
        failure_reasons: delivery.reasons.map((r) => ({ rule: r.rule, message: r.message })),
        finished_at: delivery.finished_at ? unix(delivery.finished_at) : null,
      }
    : null;
}

/** The invoice with its delivery (null when its customer chose none). */
export function presentInvoice(
  row: InvoiceRow,
  delivery: InvoiceDeliveryRow | null | undefined,
): InvoiceObject {
  return {
    id: row.id,
    object: 'invoice',
    livemode: row.livemode,
    number: row.number,
    sequence: row.sequence,
    status: row.status,
    currency: 'ISK',
    payment_intent: row.payment_intent_id,
    claim: row.claim_id,
    pos_sale: row.pos_sale_id ?? null,
    customer: row.customer_id,
    subscription: row.subscription_id,
    checkout_session: row.checkout_session_id,
    seller: {
      name: row.seller.name,
      kennitala: row.seller.kennitala,
      vat_number: row.seller.vat_number,
      address: row.seller.address,
    },
    buyer: { name: row.buyer.name, email: row.buyer.email, kennitala: row.buyer.kennitala },
    lines: row.lines.map((l) => presentLine(l, row.seller)),
    vat: row.vat.map((v) => presentVatGroup(v, row.seller)),
    total: row.total,
    total_vat: row.total_vat,
    amount_credited: row.amount_credited,
    issued_at: unix(row.issued_at),
    supplied_at: unix(row.supplied_at),
    due_date: row.due_date,
    final_due_date: row.final_due_date,
    payment_reference: row.payment_reference,
    einvoice: einvoiceRefusal(row.seller, row.buyer) === null,
    delivery: presentDelivery(delivery),
    created_at: unix(row.created_at),
  };
}

export const CreditNoteSchema = z.object({
  id: z.string(),
  object: z.literal('credit_note'),
  livemode: z.boolean(),
  number: z.string(),
  sequence: z.number().int().describe('Numbered in the same sequence as the invoices (decision 0139)'),
  currency: z.literal('ISK'),
  invoice: z.string(),
  refund: z.string().nullable().describe('The refund it credits; null when it credits a cancelled krafa'),
  claim: z
    .string()
    .nullable()
    .describe('The krafa cancelled unpaid whose invoice it credits in full (decision 0211)'),
  pos_refund: z.string().nullable().describe('The till refund it credits (decision 0235)'),
  lines: z.array(Line),
  vat: z.array(VatPerRate),
  total: z.number().int(),
  total_vat: z.number().int(),
  issued_at: z.number(),
  delivery: Delivery.describe(
    'How the credit note reaches the buyer, as its invoice did (decision 0237); null when the customer chose none',
  ),
  created_at: z.number(),
});

export type CreditNoteObject = z.output<typeof CreditNoteSchema>;

export function presentCreditNote(
  row: CreditNoteRow,
  seller: { vat_number: string | null },
  delivery: InvoiceDeliveryRow | null | undefined,
): CreditNoteObject {
  return {
    id: row.id,
    object: 'credit_note',
    livemode: row.livemode,
    number: row.number,
    sequence: row.sequence,
    currency: 'ISK',
    invoice: row.invoice_id,
    refund: row.refund_id,
    claim: row.claim_id,
    pos_refund: row.pos_refund_id ?? null,
    lines: row.lines.map((l) => presentLine(l, seller)),
    vat: row.vat.map((v) => presentVatGroup(v, seller)),
    total: row.total,
    total_vat: row.total_vat,
    issued_at: unix(row.issued_at),
    delivery: presentDelivery(delivery),
    created_at: unix(row.created_at),
  };
}
