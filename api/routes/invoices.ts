import { Router } from 'express';
import { z } from 'zod';
import type { OperationDoc } from '../openapi';
import type { InvoiceService } from '../../services/invoices/invoices-service';
import { CreditNoteSchema, InvoiceSchema } from '../../services/invoices/invoice-object';
import { createRoutes } from '../route';
import { listOf, listResponse } from '../list';
import { pageOptions, pageQuery, zId } from '../fields';

export const InvoiceListQuery = pageQuery
  .extend({ customer: zId.optional(), subscription: zId.optional() })
  .strict();
const CreditNoteListQuery = pageQuery.extend({ invoice: zId.optional() }).strict();

/**
 * `/v1/invoices` and `/v1/credit-notes`: read-only. A document is issued in the transaction of the
 * sale or refund it records, takes the next number of a gapless series and is never changed after
 * (decisions 0139, 0140).
 */
export function invoicesRouter(deps: { invoices: InvoiceService }, docs: OperationDoc[]): Router {
  const router = Router();
  const route = createRoutes(router, docs);
  const { invoices } = deps;

  route({
    method: 'get',
    path: '/v1/invoices',
    summary: 'List invoices, newest first',
    tag: 'Invoices',
    query: InvoiceListQuery,
    response: listOf(InvoiceSchema),
    handler: async ({ query, scope }) => {
      const page = await invoices.list(scope, {
        ...pageOptions(query),
        ...(query.customer !== undefined && { customerId: query.customer }),
        ...(query.subscription !== undefined && { subscriptionId: query.subscription }),
      });
      return listResponse('/v1/invoices', page.data, page.hasMore);
    },
  });

  route({
    method: 'get',
    path: '/v1/invoices/:id',
    summary: 'Retrieve an invoice',
    tag: 'Invoices',
    response: InvoiceSchema,
    handler: ({ params, scope }) => invoices.retrieve(scope, params.id!),
  });

  route({
    method: 'get',
    path: '/v1/invoices/:id/pdf',
    summary: 'Download the invoice as PDF',
    tag: 'Invoices',
    contentType: 'application/pdf',
    response: z.string().describe('The PDF document'),
    handler: ({ params, scope }) => invoices.pdf(scope, params.id!),
  });

  route({
    method: 'get',
    path: '/v1/invoices/:id/ubl',
    summary: 'Download the invoice as a UBL 2.1 e-invoice (Peppol BIS Billing 3.0, TS-236)',
    tag: 'Invoices',
    contentType: 'application/xml',
    response: z.string().describe('The UBL 2.1 Invoice document'),
    // 422 for a consumer's invoice or missing seller/buyer fields, naming them (decision 0210).
    errors: [404, 422],
    handler: ({ params, scope }) => invoices.ubl(scope, params.id!),
  });

  route({
    method: 'get',
    path: '/v1/credit-notes',
    summary: 'List credit notes, newest first',
    tag: 'Credit Notes',
    query: CreditNoteListQuery,
    response: listOf(CreditNoteSchema),
    handler: async ({ query, scope }) => {
      const page = await invoices.listCreditNotes(scope, {
        ...pageOptions(query),
        ...(query.invoice !== undefined && { invoice: query.invoice }),
      });
      return listResponse('/v1/credit-notes', page.data, page.hasMore);
    },
  });

  route({
    method: 'get',
    path: '/v1/credit-notes/:id',
    summary: 'Retrieve a credit note',
    tag: 'Credit Notes',
    response: CreditNoteSchema,
    handler: ({ params, scope }) => invoices.retrieveCreditNote(scope, params.id!),
  });

  route({
    method: 'get',
    path: '/v1/credit-notes/:id/ubl',
    summary: 'Download the credit note as a UBL 2.1 CreditNote (Peppol BIS Billing 3.0, TS-236)',
    tag: 'Credit Notes',
    contentType: 'application/xml',
    response: z.string().describe('The UBL 2.1 CreditNote document'),
    errors: [404, 422],
    handler: ({ params, scope }) => invoices.creditNoteUbl(scope, params.id!),
  });

  return router;
}
