import type { Knex } from '../../db/knex';
import type { Scope } from '../../domain/scope';
import { createInvoiceRepository } from '../../db/invoices';
import { createCustomerRepository } from '../../db/customers';
import { createSubscriptionRepository } from '../../db/subscriptions';
import { findOr404, findReference, type PageOptions } from '../lookup';
import { presentCreditNote, presentInvoice } from './invoice-object';
import { creditNoteUbl, invoiceUbl } from './ubl';
import { invoicePdf } from './pdf';

/** Invoices and credit notes as the API reads them; PDF and UBL rendered when asked for (decision 0139). */
export function createInvoiceService(deps: { knex: Knex }) {
  const invoices = createInvoiceRepository(deps.knex);
  const customers = createCustomerRepository(deps.knex);
  const subscriptions = createSubscriptionRepository(deps.knex);

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
      return { data: page.data.map(presentInvoice), hasMore: page.hasMore };
    },

    retrieve: async (scope: Scope, id: string) => presentInvoice(await invoiceOr404(scope, id)),

    ubl: async (scope: Scope, id: string) => invoiceUbl(await invoiceOr404(scope, id)),

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
      return { data: page.data.map(presentCreditNote), hasMore: page.hasMore };
    },

    retrieveCreditNote: async (scope: Scope, id: string) =>
      presentCreditNote(await creditNoteOr404(scope, id)),

    async creditNoteUbl(scope: Scope, id: string) {
      const note = await creditNoteOr404(scope, id);
      const invoice = (await invoices.findById(scope, note.invoice_id))!;
      return creditNoteUbl(note, invoice);
    },
  };
}

export type InvoiceService = ReturnType<typeof createInvoiceService>;
