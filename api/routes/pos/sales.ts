import { Router } from 'express';
import { z } from 'zod';
import type { OperationDoc } from '../../openapi';
import type { TillService } from '../../../services/pos/till';
import type { SaleReceipts } from '../../../services/pos/sale-receipt';
import { PosSaleSchema } from '../../../services/pos/sale-object';
import { PosReceiptSchema } from '../../../services/pos/receipt-object';
import { createRoutes } from '../../route';
import { listOf } from '../../list';
import { zInt } from '../../validation';
import { pageOptions, zAmount, zId, zLine } from '../../fields';
import { VatTreatmentInput, zVatRate } from '../products';
import { actor, list, RegisterQuery, tag, zStaff } from './shared';

const SaleLine = z.union([
  z
    .object({
      product: zId,
      variant: zId.optional(),
      quantity: zInt().pipe(z.number().min(1).max(1000)),
      discount_amount: zAmount().optional().describe('VAT-inclusive, off the whole line'),
    })
    .strict(),
  z
    .object({
      description: zLine(255).min(1),
      unit_amount: zAmount().describe('VAT-inclusive ISK'),
      vat_rate: zVatRate,
      ...VatTreatmentInput,
      quantity: zInt().pipe(z.number().min(1).max(1000)),
      discount_amount: zAmount().optional(),
    })
    .strict(),
]);
const SalePayment = z.union([
  z
    .object({
      method: z.literal('cash'),
      amount: zAmount().pipe(z.number().min(1)),
      tendered: zAmount().optional().describe('Cash handed over; the change due is the difference'),
    })
    .strict(),
  z.object({ method: z.literal('card'), amount: zAmount().pipe(z.number().min(1)) }).strict(),
]);
const CreateSale = z
  .object({
    lines: z.array(SaleLine).min(1).max(100),
    payments: z
      .array(SalePayment)
      .min(1)
      .max(10)
      .describe('Parts that sum to the sale: cash, card (on the paired terminal), or both'),
    email: z.string().email().max(254).optional().describe('Where the receipt is sent'),
    customer: zId
      .optional()
      .describe(
        'A business buyer (a customer marked business or with a company kennitala): the sale is also invoiced, with a UBL e-invoice (decision 0235)',
      ),
    staff: zStaff,
  })
  .strict();

/**
 * Sales made at a register, paid by cash, card or both (decision 0129), and their receipts.
 */
export function posSalesRouter(
  deps: { till: TillService; receipts: SaleReceipts },
  docs: OperationDoc[],
): Router {
  const router = Router();
  const route = createRoutes(router, docs);
  const { till } = deps;
  route({
    method: 'post',
    path: '/v1/pos/registers/:id/sales',
    summary:
      'Make a sale: lines with VAT, paid by cash (change due), by card on the paired terminal, or split',
    tag,
    body: CreateSale,
    response: PosSaleSchema,
    errors: [402, 403, 503],
    handler: ({ params, body, scope, res }) => till.createSale(scope, actor(res), params.id!, body),
  });
  route({
    method: 'get',
    path: '/v1/pos/sales',
    summary: 'List sales, newest first',
    tag,
    query: RegisterQuery,
    response: listOf(PosSaleSchema),
    errors: [403],
    handler: async ({ query, scope, res }) =>
      list(
        '/v1/pos/sales',
        await till.listSales(scope, actor(res), { ...pageOptions(query), registerId: query.register }),
      ),
  });
  route({
    method: 'get',
    path: '/v1/pos/sales/:id',
    summary: 'Retrieve a sale',
    tag,
    response: PosSaleSchema,
    errors: [403],
    handler: ({ params, scope, res }) => till.retrieveSale(scope, actor(res), params.id!),
  });
  route({
    method: 'get',
    path: '/v1/pos/sales/:id/receipt',
    summary: 'The sale’s receipt: the printable 80 mm page and the email body, VAT per rate',
    tag,
    query: z.object({ locale: z.enum(['is', 'en']).default('is') }).strict(),
    response: PosReceiptSchema,
    errors: [403],
    handler: ({ params, query, scope, res }) =>
      deps.receipts.receipt(scope, actor(res), params.id!, query.locale),
  });
  return router;
}
