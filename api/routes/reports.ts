import { Router, type Request, type Response } from 'express';
import { z } from 'zod';
import type { OperationDoc } from '../openapi';
import type { VatReportService } from '../../services/books/vat-report';
import { VatReportDocumentSchema, VatReportSchema } from '../../services/books/vat-report-object';
import { JOURNAL_FORMATS, type JournalService } from '../../services/books/journal';
import { BooksPeriodSchema, ChartSchema, JournalPageSchema } from '../../services/books/journal-object';
import { ACCOUNT_ROLES } from '../../domain/journal';
import { writeChunks } from '../../services/books/write-chunks';
import { createRoutes } from '../route';
import { listOf, listResponse } from '../list';
import { zInt, parseInput } from '../validation';
import { context, scopeOf } from '../../stack/request-context';
import type { Scope } from '../../domain/scope';

const zPeriod = z
  .string()
  .max(16)
  .optional()
  .describe(
    "The VAT period: 'YYYY-MM' names a two-month period by its first (odd) month, 'YYYY' a year; default the last period of the merchant's kind that has ended",
  );
export const VatReportQuery = z.object({ period: zPeriod }).strict();
export const JournalCsvQuery = z
  .object({
    period: zPeriod,
    format: z
      .enum(JOURNAL_FORMATS)
      .default('generic')
      .describe(
        "'generic': Skil's documented CSV; 'regla': Regla's import of ledger entries (8 semicolon-separated columns, decision 0260)",
      ),
  })
  .strict();
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

export const JournalQuery = z
  .object({
    period: zPeriod,
    limit: zInt().pipe(z.number().min(1).max(100)).default(25),
    page: z.string().min(1).max(200).optional().describe("A list's `next_page`: the entries after it"),
  })
  .strict();
export const ChartBody = z
  .object({
    accounts: z
      .array(
        z
          .object({
            role: z.enum(ACCOUNT_ROLES),
            number: z
              .string()
              .regex(/^[0-9A-Za-z.-]{1,20}$/, 'letters, digits, dots and hyphens, 1 to 20')
              .describe("The merchant's account number"),
            name: z.string().min(1).max(100).nullable().optional().describe('Its name; null for the default'),
          })
          .strict(),
      )
      .min(1)
      .max(ACCOUNT_ROLES.length),
  })
  .strict();

/**
 * The VAT return's figures, the documents behind them, and their CSV (decision 0238); the journal,
 * its CSV, the chart of accounts and closing a period (decisions 0239, 0240).
 */
export function reportsRouter(
  deps: {
    vatReport: VatReportService;
    journal: JournalService;
    log: { error: (o: object, m: string) => void };
  },
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

  /**
   * A period's CSV download: documented like a route, the period checked before the status line
   * goes out (a bad one is a 400), then the rows streamed with back-pressure.
   */
  const csvDownload = <P extends { id: string }, Q extends { period?: string | undefined }>(
    path: string,
    summary: string,
    name: (period: P, query: Q) => string,
    periodFor: (scope: Scope, period: string | undefined) => Promise<P>,
    rows: (scope: Scope, period: P, query: Q) => AsyncIterable<string>,
    query: z.ZodType<Q> = VatReportQuery as unknown as z.ZodType<Q>,
  ) => {
    docs.push({
      method: 'get',
      path,
      summary,
      tag,
      auth: true,
      query,
      response: z.string(),
      status: 200,
      contentType: 'text/csv',
    });
    router.get(path, async (req: Request, res: Response) => {
      context(res).route = path;
      const scope = scopeOf(res);
      const parsed = parseInput(query, req.query, 'query');
      const period = await periodFor(scope, parsed.period);
      res
        .status(200)
        .type('text/csv; charset=utf-8')
        .set('content-disposition', `attachment; filename="${name(period, parsed)}.csv"`)
        .set('cache-control', 'no-store');
      await writeChunks(res, rows(scope, period, parsed), (err) =>
        deps.log.error({ err, path }, 'report export failed'),
      );
    });
  };

  csvDownload(
    '/v1/reports/vat.csv',
    "A VAT period's documents with their figures and a total row, as CSV (streamed)",
    (period) => `vat-${period.id}`,
    vatReport.periodFor,
    (scope, period) => vatReport.csv(scope, { period: period.id }),
  );

  const { journal } = deps;

  route({
    method: 'get',
    path: '/v1/reports/journal',
    summary: "A period's accounting journal: balanced entries per source, oldest first, paged by `page`",
    tag,
    query: JournalQuery,
    response: JournalPageSchema,
    handler: async ({ query, scope }) => {
      const p = await journal.page(scope, { period: query.period, limit: query.limit, page: query.page });
      return {
        object: 'list' as const,
        url: '/v1/reports/journal',
        period: p.period,
        data: p.data,
        has_more: p.hasMore,
        next_page: p.nextPage,
      };
    },
  });

  csvDownload(
    '/v1/reports/journal.csv',
    "A period's journal as CSV, a row per line (date, entry, source_type, source_id, reference, account_number, account_name, account, debit, credit), or as Regla imports ledger entries (`format=regla`); streamed, and the same bytes every time once the period is closed",
    (period, query) => (query.format === 'regla' ? `journal-regla-${period.id}` : `journal-${period.id}`),
    journal.periodFor,
    (scope, period, query) => journal.csv(scope, { period: period.id, format: query.format }),
    JournalCsvQuery,
  );

  csvDownload(
    '/v1/reports/settlement.csv',
    "The settlement lines of the runs settled in a period, each with its run's payout, the camt.053 entry that booked it, and its refund, dispute or cost, as CSV (streamed)",
    (period) => `settlement-${period.id}`,
    journal.periodFor,
    (scope, period) => journal.settlementCsv(scope, period),
  );

  route({
    method: 'post',
    path: '/v1/reports/periods/:period/close',
    summary:
      'Closes a period of the books: its journal is kept as it is now, and anything later lands in the next open period',
    tag,
    response: BooksPeriodSchema,
    errors: [400],
    handler: ({ params, scope }) => journal.close(scope, params.period ?? ''),
  });

  route({
    method: 'get',
    path: '/v1/reports/chart_of_accounts',
    summary: "The accounts the journal posts to, each with the merchant's number and Skil's default",
    tag,
    response: ChartSchema,
    handler: async ({ scope }) => ({
      object: 'chart_of_accounts' as const,
      livemode: scope.livemode,
      accounts: await journal.chart(scope),
    }),
  });

  route({
    method: 'post',
    path: '/v1/reports/chart_of_accounts',
    summary: "Sets the merchant's own account numbers (and names); closed periods keep theirs",
    tag,
    body: ChartBody,
    response: ChartSchema,
    handler: async ({ body, scope }) => ({
      object: 'chart_of_accounts' as const,
      livemode: scope.livemode,
      accounts: await journal.setChart(scope, body.accounts),
    }),
  });

  return router;
}
