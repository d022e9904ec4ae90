import type { Locale } from '../../domain/locale';
import type { Knex } from '../../db/knex';
import type { Mailer } from '../../adapters/mail/mailer';
import type { InvoiceRow } from '../../db/invoices';
import { createInvoiceRepository } from '../../db/invoices';
import { renderReceiptEmail, type ReceiptInput, type ReceiptLineInput } from '../receipts';
import { invoicePdf } from './pdf';
import { lineCategory } from '../../domain/invoices';

/**
 * The invoice as the receipt service's input, so that sales and invoices print and mail through one
 * rendering (decision 0130): a discount line of the invoice becomes the discount of the first line at
 * its rate, as receipts carry discounts.
 */
export function receiptOfInvoice(inv: InvoiceRow, locale: Locale): ReceiptInput {
  const lines: ReceiptLineInput[] = inv.lines
    .filter((l) => l.amount >= 0)
    .map((l) => ({
      description: l.description,
      quantity: l.quantity,
      unitAmount: l.unit_amount,
      vatRate: l.vat_rate,
      vatCategory: lineCategory(l, inv.seller),
    }));
  for (const d of inv.lines.filter((l) => l.amount < 0)) {
    const target = lines.find(
      (l) => l.vatRate === d.vat_rate && l.vatCategory === lineCategory(d, inv.seller),
    );
    if (target) target.discountAmount = (target.discountAmount ?? 0) - d.amount;
  }
  const a = inv.seller.address;
  return {
    kind: 'invoice',
    number: inv.number,
    issuedAt: inv.issued_at,
    locale,
    seller: {
      name: inv.seller.name,
      kennitala: inv.seller.kennitala,
      vatNumber: inv.seller.vat_number,
      address: a ? `${a.street}, ${a.postalCode} ${a.city}` : null,
    },
    buyer: { name: inv.buyer.name, email: inv.buyer.email, kennitala: inv.buyer.kennitala },
    lines,
    payments: [{ method: inv.due_date ? 'bank_claim' : 'card', amount: inv.total }],
    notes: [`${locale === 'is' ? 'Greiðslutilvísun' : 'Payment reference'}: ${inv.payment_reference}`],
  };
}

/**
 * Emails the buyer the receipt of a paid payment with its invoice PDF attached, when the payment has
 * an invoice, the buyer an address and the merchant receipts switched on (decision 0141). Returns
 * whether a message was sent. Called after the payment commits: a mail failure never undoes a payment.
 */
export async function sendReceipt(
  deps: { knex: Knex; mailer: Mailer },
  paymentIntentId: string,
): Promise<boolean> {
  const found = await createInvoiceRepository(deps.knex).receiptOfPayment(paymentIntentId);
  if (!found || !found.send || !found.email) return false;
  const locale = found.locale ?? 'is';
  const mail = renderReceiptEmail(receiptOfInvoice(found.invoice, locale));
  await deps.mailer.send({
    to: found.email,
    subject: mail.subject,
    text: mail.text,
    html: mail.html,
    attachments: [
      {
        filename: `${found.invoice.number}.pdf`,
        content: await invoicePdf(found.invoice),
        contentType: 'application/pdf',
      },
    ],
  });
  return true;
}
