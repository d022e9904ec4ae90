import type { Knex } from '../../db/knex';
import type { Scope } from '../../domain/scope';
import { createInvoiceRepository, type InvoiceRow } from '../../db/invoices';
import { createInvoiceDeliveryRepository } from '../../db/invoice-deliveries';
import { einvoiceRefusal } from '../../domain/einvoice-parties';
import { UnprocessableError } from '../../domain/errors';
import { createCustomerRepository } from '../../db/customers';
import { createSubscriptionRepository } from '../../db/subscriptions';
import { findOr404, findReference, type PageOptions } from '../lookup';
import { presentCreditNote, presentInvoice } from './invoice-object';
import { creditNoteUbl, invoiceUbl } from './ubl';
import { invoicePdf } from './pdf';

/**
 * A consumer's invoice, or one whose seller or business buyer lacks what TS-236 requires, has no
 * Peppol document: 422 naming the fields, the PDF still served (decision 0210).
 */
function refuseNonPeppol(invoice: InvoiceRow): void {
  const refusal = einvoiceRefusal(invoice.seller, invoice.buyer);
  if (refusal) throw new UnprocessableError(refusal.message, refusal.code, refusal.params);
}

/** Invoices and credit notes as the API reads them; PDF and UBL rendered when asked for (decision 0139). */
export function createInvoiceService(deps: { knex: Knex }) {
  const invoices = createInvoiceRepository(deps.knex);
  const customers = createCustomerRepository(deps.knex);
  const subscriptions = createSubscriptionRepository(deps.knex);
  const deliveries = createInvoiceDeliveryRepository(deps.knex);
  const noteDeliveries = createInvoiceDeliveryRepository(deps.knex, 'credit_note');

  const invoiceOr404 = (scope: Scope, id: string) =>
    findOr404(
      'invoice',
      scope,
      id,
      () => invoices.findById(scope, id),
      () => invoices.existsInOtherMode(scope, id),
    );
  const creditNoteOr404 = (scope: Scope, id: string) =>
    findOr404(
      'credit_note',
      scope,
      id,
      () => invoices.findCreditNote(scope, id),
      () => invoices.creditNoteExistsInOtherMode(scope, id),
    );

  return {
    async list(
      scope: Scope,
      opts: PageOptions & { customerId?: string; subscriptionId?: string; paymentIntentId?: string },
    ) {
      const { customerId, subscriptionId } = opts;
      if (customerId !== undefined)
        await findReference('customer', customerId, 'customer', () => customers.findById(scope, customerId));
      if (subscriptionId !== undefined)
        await findReference('subscription', subscriptionId, 'subscription', () =>
          subscriptions.findById(scope, subscriptionId),
        );
      const page = await invoices.list(scope, opts);
      const delivered = await deliveries.ofInvoices(
        scope,
        page.data.map((i) => i.id),
      );
      return { data: page.data.map((i) => presentInvoice(i, delivered.get(i.id))), hasMore: page.hasMore };
    },

    async retrieve(scope: Scope, id: string) {
      const invoice = await invoiceOr404(scope, id);
      return presentInvoice(invoice, await deliveries.find(scope, invoice.id));
    },

    /** The invoice of a payment with its delivery, or null when the payment has none. */
    async ofPayment(scope: Scope, paymentIntentId: string) {
      const invoice = await invoices.findByPayment(scope, paymentIntentId);
      return invoice ? presentInvoice(invoice, await deliveries.find(scope, invoice.id)) : null;
    },

    async ubl(scope: Scope, id: string) {
      const invoice = await invoiceOr404(scope, id);
      refuseNonPeppol(invoice);
      return invoiceUbl(invoice);
    },

    pdf: async (scope: Scope, id: string) => invoicePdf(await invoiceOr404(scope, id)),

    async listCreditNotes(scope: Scope, opts: PageOptions & { invoice?: string }) {
      if (opts.invoice !== undefined) {
        const invoice = opts.invoice;
        await findReference('invoice', invoice, 'invoice', () => invoices.findById(scope, invoice));
      }
      const page = await invoices.listCreditNotes(scope, {
        ...opts,
        ...(opts.invoice !== undefined && { invoiceId: opts.invoice }),
      });
      const [sellers, delivered] = await Promise.all([
        invoices.sellersOf(scope, [...new Set(page.data.map((n) => n.invoice_id))]),
        noteDeliveries.ofInvoices(
          scope,
          page.data.map((n) => n.id),
        ),
      ]);
      return {
        data: page.data.map((n) => presentCreditNote(n, sellers.get(n.invoice_id)!, delivered.get(n.id))),
        hasMore: page.hasMore,
      };
    },

    async retrieveCreditNote(scope: Scope, id: string) {
      const note = await creditNoteOr404(scope, id);
      const sellers = await invoices.sellersOf(scope, [note.invoice_id]);
      return presentCreditNote(
        note,
        sellers.get(note.invoice_id)!,
        await noteDeliveries.find(scope, note.id),
      );
    },

    async creditNoteUbl(scope: Scope, id: string) {
      const note = await creditNoteOr404(scope, id);
      const invoice = (await invoices.findById(scope, note.invoice_id))!;
      refuseNonPeppol(invoice);
      return creditNoteUbl(note, invoice);
    },
  };
}

export type InvoiceService = ReturnType<typeof createInvoiceService>;
