import { Router, type Request, type Response } from 'express';
import { z } from 'zod';
import type { OperationDoc } from '../openapi';
import type { VatReportService } from '../../services/books/vat-report';
import { VatReportDocumentSchema, VatReportSchema } from '../../services/books/vat-report-object';
import { writeChunks } from '../../services/books/write-chunks';
import { createRoutes } from '../route';
import { listOf, listResponse } from '../list';
import { zInt, parseInput } from '../validation';
import { context, scopeOf } from '../../stack/request-context';

const zPeriod = z
  .string()
  .max(16)
  .optional()
  .describe(
    "The VAT period: 'YYYY-MM' names a two-month period by its first (odd) month, 'YYYY' a year; default the last period of the merchant's kind that has ended",
  );
export const VatReportQuery = z.object({ period: zPeriod }).strict();
export const VatDocumentsQuery = z
  .object({
    period: zPeriod,
    box: z
      .enum(['A', 'B', 'C', 'D', 'out_of_scope'])
      .optional()
      .describe('Only the documents that put something in this box'),
    limit: zInt().pipe(z.number().min(1).max(100)).default(25),
    starting_after: z.string().min(1).max(64).optional(),
  })
  .strict();

/** The VAT return's figures, the documents behind them, and their CSV (decision 0238). */
export function reportsRouter(
  deps: { vatReport: VatReportService; log: { error: (o: object, m: string) => void } },
  docs: OperationDoc[],
): Router {
  const router = Router();
  const route = createRoutes(router, docs);
  const tag = 'Reports';
  const { vatReport } = deps;

  route({
    method: 'get',
    path: '/v1/reports/vat',
    summary: "A VAT period's figures as the boxes of the return RSK 10.01, with its due date",
    tag,
    query: VatReportQuery,
    response: VatReportSchema,
    handler: ({ query, scope }) => vatReport.report(scope, { period: query.period }),
  });

  route({
    method: 'get',
    path: '/v1/reports/vat/documents',
    summary: "The invoices, credit notes, till sales and refunds behind a VAT period's figures, oldest first",
    tag,
    query: VatDocumentsQuery,
    response: listOf(VatReportDocumentSchema),
    handler: async ({ query, scope }) => {
      const page = await vatReport.documents(scope, {
        period: query.period,
        box: query.box,
        limit: query.limit,
        startingAfter: query.starting_after,
      });
      return listResponse('/v1/reports/vat/documents', page.data, page.hasMore);
    },
  });

  docs.push({
    method: 'get',
    path: '/v1/reports/vat.csv',
    summary: "A VAT period's documents with their figures and a total row, as CSV (streamed)",
    tag,
    auth: true,
    query: VatReportQuery,
    response: z.string(),
    status: 200,
    contentType: 'text/csv',
  });
  router.get('/v1/reports/vat.csv', async (req: Request, res: Response) => {
    context(res).route = '/v1/reports/vat.csv';
    const scope = scopeOf(res);
    const query = parseInput(VatReportQuery, req.query, 'query');
    // A bad period is a 400 before the status line goes out.
    const period = await vatReport.periodFor(scope, query.period);
    res
      .status(200)
      .type('text/csv; charset=utf-8')
      .set('content-disposition', `attachment; filename="vat-${period.id}.csv"`)
      .set('cache-control', 'no-store');
    await writeChunks(res, vatReport.csv(scope, { period: period.id }), (err) =>
      deps.log.error({ err }, 'VAT report export failed'),
    );
  });

  return router;
}
