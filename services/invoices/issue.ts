import type { Knex } from '../../db/knex';
import {
  createInvoiceRepository,
  type InvoiceDraft,
  type InvoiceRow,
  type SaleSource,
} from '../../db/invoices';
import { recordEvents, type BatchEvent } from '../../db/event-batch';
import {
  creditLines,
  groupCategory,
  invoiceAmounts,
  lineCategory,
  type SaleLine,
} from '../../domain/invoices';
import { newId, ID_PREFIX } from '../../domain/ids';
import { isVatRate, type VatRate } from '../../domain/vat';
import { effectiveVatCategory, vatTreatmentOf, type VatTreatment } from '../../domain/vat-category';
import type { Seller } from '../../db/invoices';
import { presentCreditNote, presentInvoice } from './invoice-object';
import { createInvoiceDeliveryRepository } from '../../db/invoice-deliveries';
import { invoiceDeliveryWake } from '../../engine/invoice-delivery-starter';

/**
 * What a sale's invoice lists: a renewal's product (with its proration and discount as lines of
 * their own), or a checkout's items (its discount shared among their VAT rates); an amount-only
 * checkout is one line at the merchant's default VAT rate (decision 0138).
 */
export function saleLines(s: SaleSource): SaleLine[] {
  const vatOfLine = (rate: VatRate, t: Partial<VatTreatment> | null | undefined) =>
    lineVat(s.seller, rate, t);
  if (s.renewal) {
    const r = s.renewal;
    const vat = vatOfLine(r.vat_rate, r.vat);
    const lines: SaleLine[] = [
      {
        description: r.product_name,
        quantity: r.quantity,
        unit_amount: r.unit_amount,
        vat_rate: r.vat_rate,
        ...vat,
      },
    ];
    if (r.proration_amount !== 0)
      lines.push({
        description: 'Proration',
        quantity: 1,
        unit_amount: r.proration_amount,
        vat_rate: r.vat_rate,
        ...vat,
      });
    if (r.discount_amount !== 0)
      lines.push({
        description: 'Discount',
        quantity: 1,
        unit_amount: -r.discount_amount,
        vat_rate: r.vat_rate,
        ...vat,
      });
    const sum = lines.reduce((t, l) => t + l.quantity * l.unit_amount, 0);
    // A period priced by rules this reader does not know is still invoiced for what it charged.
    if (sum !== r.amount)
      return [
        { description: r.product_name, quantity: 1, unit_amount: r.amount, vat_rate: r.vat_rate, ...vat },
      ];
    return lines;
  }
  if (s.pos) {
    // A till line's own discount is a line of its own at the line's VAT (as a renewal's discount).
    return s.pos.lines.flatMap((l) => {
      const vat = vatOfLine(l.vat_rate, l);
      const sold = {
        description: l.description,
        quantity: l.quantity,
        unit_amount: l.unit_amount,
        vat_rate: l.vat_rate,
        ...vat,
      };
      if (l.discount_amount === 0) return [sold];
      return [
        sold,
        {
          description: `Discount: ${l.description}`,
          quantity: 1,
          unit_amount: -l.discount_amount,
          vat_rate: l.vat_rate,
          ...vat,
        },
      ];
    });
  }
  const session = s.session!;
  const items = session.items.filter((i) => isVatRate(i.vat_rate));
  const sold = items.reduce((t, i) => t + i.quantity * i.unit_amount, 0);
  if (items.length === 0 || sold - session.discount_amount !== s.amount_captured)
    return [
      {
        description: session.product_name ?? s.description ?? 'Payment',
        quantity: 1,
        unit_amount: s.amount_captured,
        vat_rate: s.default_vat_rate,
        ...vatOfLine(s.default_vat_rate, null),
      },
    ];
  const lines: SaleLine[] = items.map((i) => ({
    description: i.description,
    quantity: i.quantity,
    unit_amount: i.unit_amount,
    vat_rate: i.vat_rate,
    ...vatOfLine(i.vat_rate, i),
  }));
  if (session.discount_amount > 0) {
    const shares = creditLines(invoiceAmounts(lines), session.discount_amount, 'Discount');
    for (const d of shares) lines.push({ ...d, unit_amount: -d.unit_amount });
  }
  return lines;
}

/**
 * A line's VAT as the invoice keeps it: the effective category (decision 0234), with its exemption
 * reason only where the category has one (a seller without a VAT number drops an E line's reason
 * for its own "not registered" one).
 */
function lineVat(seller: Seller, rate: VatRate, t: Partial<VatTreatment> | null | undefined) {
  const own = vatTreatmentOf(t);
  const category = effectiveVatCategory(rate, own.vat_category, seller);
  const kept = category === own.vat_category && (category === 'E' || category === 'O');
  return {
    vat_category: category,
    vat_exemption_reason: kept ? own.vat_exemption_reason : null,
    vat_exemption_reason_code: kept ? own.vat_exemption_reason_code : null,
  };
}

function draftOf(s: SaleSource): InvoiceDraft {
  const amounts = invoiceAmounts(saleLines(s));
  return {
    id: newId(ID_PREFIX.invoice),
    merchantId: s.merchant_id,
    livemode: s.livemode,
    paymentIntentId: s.payment_intent_id,
    claim: s.claim,
    posSaleId: s.pos?.sale_id ?? null,
    customerId: s.customer_id,
    subscriptionId: s.subscription_id,
    checkoutSessionId: s.checkout_session_id,
    seller: s.seller,
    buyer: s.buyer,
    lines: amounts.lines,
    vat: amounts.vat,
    total: amounts.total,
    totalVat: amounts.total_vat,
    issuedAt: new Date(s.captured_at),
    suppliedAt: s.renewal ? s.renewal.period_start : new Date(s.captured_at),
  };
}

/**
 * Issues the invoices of these captured payments that sell something and have none yet, numbered
 * in one statement, with an `invoice.finalized` event each, in the caller's transaction (call it
 * last: the merchant's sequence stays locked until the transaction ends). Returns the channels to
 * wake after commit, and the invoice deliveries to start (decision 0217). Idempotent: a payment's
 * second call finds its invoice and issues nothing.
 */
export async function issueInvoices(
  trx: Knex.Transaction,
  paymentIntentIds: readonly string[],
): Promise<string[]> {
  return issueFor(trx, await createInvoiceRepository(trx).findUninvoicedSales(trx, paymentIntentIds));
}

/**
 * Issues the open invoices of these kröfur, just accepted by the bank, that collect a sale (a
 * checkout paid by krafa, a renewal): with the krafa's gjalddagi, eindagi and account (decision
 * 0211). Same transaction rules and idempotency as `issueInvoices`.
 */
export async function issueClaimInvoices(
  trx: Knex.Transaction,
  claimIds: readonly string[],
): Promise<string[]> {
  return issueFor(trx, await createInvoiceRepository(trx).findUninvoicedClaimSales(trx, claimIds));
}

async function issueFor(trx: Knex.Transaction, sales: SaleSource[]): Promise<string[]> {
  const rows = await createInvoiceRepository(trx).insertNumbered(trx, sales.map(draftOf));
  // Each invoice's delivery, as its customer chose, in this transaction: the outbox its delivery
  // workflow, started after commit, works from (decision 0217).
  const queued = await createInvoiceDeliveryRepository(trx).queue(
    trx,
    rows.map((r) => r.id),
  );
  const deliveries = new Map(queued.map((d) => [d.document_id, d]));
  const events: BatchEvent[] = rows.map((r) => ({
    merchantId: r.merchant_id,
    livemode: r.livemode,
    type: 'invoice.finalized',
    data: presentInvoice(r, deliveries.get(r.id)),
  }));
  return [...(await recordEvents(trx, events)), ...queued.map(invoiceDeliveryWake)];
}

/**
 * The invoice of a till sale to a business buyer (decision 0235), in the sale's transaction, from the
 * merchant's one sequence: nothing for a sale without a customer or already invoiced.
 */
export async function issuePosSaleInvoice(trx: Knex.Transaction, saleId: string): Promise<string[]> {
  const sale = await createInvoiceRepository(trx).findUninvoicedPosSale(trx, saleId);
  return sale ? issueFor(trx, [sale]) : [];
}

/**
 * The credit note of a till refund of an invoiced till sale (decision 0235), in the refund's
 * transaction; nothing for a sale without an invoice.
 */
export async function creditPosRefund(
  trx: Knex.Transaction,
  refund: { id: string; sale_id: string; amount: number; created_at: Date },
): Promise<string[]> {
  const invoice = await createInvoiceRepository(trx).lockOfPosSale(trx, refund.sale_id);
  if (!invoice) return [];
  return creditInvoice(trx, invoice, {
    amount: Number(refund.amount),
    description: `Refund of invoice ${invoice.number}`,
    refundId: null,
    claimId: null,
    posRefundId: refund.id,
    at: refund.created_at,
  });
}

/**
 * The credit note of a refund of an invoiced payment, numbered next in the merchant's sequence,
 * with its `credit_note.created` event; nothing for a payment without an invoice.
 */
export async function issueCreditNote(
  trx: Knex.Transaction,
  refund: { id: string; payment_intent_id: string; amount: number; created_at: Date },
): Promise<string[]> {
  const invoice = await createInvoiceRepository(trx).lockOfPayment(trx, refund.payment_intent_id);
  if (!invoice) return [];
  return creditInvoice(trx, invoice, {
    amount: refund.amount,
    description: `Refund of invoice ${invoice.number}`,
    refundId: refund.id,
    claimId: null,
    posRefundId: null,
    at: refund.created_at,
  });
}

/**
 * A krafa cancelled before it was paid in full: its invoice is credited for what was not paid
 * (decision 0211), once (a credit note per krafa, unique); nothing for a krafa without an invoice.
 */
export async function creditCancelledClaim(
  trx: Knex.Transaction,
  claim: { id: string; amount: number; amount_paid: number; cancelled_at: Date | null },
): Promise<string[]> {
  const invoice = await createInvoiceRepository(trx).lockOfClaim(trx, claim.id);
  if (!invoice) return [];
  const unpaid = Math.min(
    Number(claim.amount) - Number(claim.amount_paid),
    invoice.total - invoice.amount_credited,
  );
  if (unpaid <= 0) return [];
  return creditInvoice(trx, invoice, {
    amount: unpaid,
    description: `Krafa cancelled: invoice ${invoice.number}`,
    refundId: null,
    claimId: claim.id,
    posRefundId: null,
    at: claim.cancelled_at ?? new Date(),
  });
}

async function creditInvoice(
  trx: Knex.Transaction,
  invoice: InvoiceRow,
  credit: {
    amount: number;
    description: string;
    refundId: string | null;
    claimId: string | null;
    posRefundId: string | null;
    at: Date;
  },
): Promise<string[]> {
  // An invoice issued before decision 0234 keeps no categories: its credit note names the derived ones.
  const seller = invoice.seller;
  const lines = creditLines(
    {
      lines: invoice.lines.map((l) => ({ ...l, vat_category: lineCategory(l, seller) })),
      vat: invoice.vat.map((v) => ({ ...v, category: groupCategory(v, seller) })),
      total: invoice.total,
      total_vat: invoice.total_vat,
    },
    credit.amount,
    credit.description,
  );
  const amounts = invoiceAmounts(lines);
  const note = await createInvoiceRepository(trx).insertCreditNote(trx, {
    id: newId(ID_PREFIX.creditNote),
    merchant_id: invoice.merchant_id,
    livemode: invoice.livemode,
    invoice_id: invoice.id,
    refund_id: credit.refundId,
    claim_id: credit.claimId,
    pos_refund_id: credit.posRefundId,
    lines: amounts.lines,
    vat: amounts.vat,
    total: amounts.total,
    total_vat: amounts.total_vat,
    issued_at: credit.at,
  });
  // Delivered as its invoice's customer takes invoices (decision 0237), from the same outbox.
  const queued = await createInvoiceDeliveryRepository(trx, 'credit_note').queue(trx, [note.id]);
  const channels = await recordEvents(trx, [
    {
      merchantId: note.merchant_id,
      livemode: note.livemode,
      type: 'credit_note.created',
      data: presentCreditNote(note, invoice.seller, queued[0]),
    },
  ]);
  return [...channels, ...queued.map(invoiceDeliveryWake)];
}
