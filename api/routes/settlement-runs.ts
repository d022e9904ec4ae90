import { Router, type Request, type Response } from 'express';
import { z } from 'zod';
import type { OperationDoc } from '../openapi';
import type { SettlementService } from '../../services/settlement/settlement-service';
import type { AccessService } from '../../services/access';
import { operatorActor } from '../../services/operator/operator-actor';
import {
  SETTLEMENT_RUN_STATUSES as STATUSES,
  SettlementRunSchema,
} from '../../services/settlement/settlement-run-object';
import { SettlementLineSchema } from '../../services/settlement/settlement-line-object';
import { createRoutes, jsonHandler } from '../route';
import { listOf, listResponse } from '../list';
import { pageOptions, pageQuery, zId } from '../fields';
import { zBool, zInt } from '../validation';
import { context, scopeOf } from '../../stack/request-context';
import { authenticateOperator, operatorOf } from '../middleware/operator-auth';

const zDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date YYYY-MM-DD')
  .refine((d) => new Date(`${d}T00:00:00Z`).toISOString().startsWith(d), 'must be a valid date');
const zDateRange = z.object({ gte: zDate.optional(), lte: zDate.optional() }).strict();

export const ListRuns = pageQuery
  .extend({ status: z.enum(STATUSES).optional(), settlement_date: zDateRange.optional() })
  .strict();
const ListLines = z
  .object({
    limit: zInt().pipe(z.number().min(1).max(100)).default(25),
    starting_after: z
      .string()
      .regex(/^[0-9]{1,18}$/, 'must be a line id')
      .optional(),
  })
  .strict();
const OperatorListRuns = z
  .object({
    livemode: zBool().default(false),
    status: z.enum(STATUSES).optional(),
    merchant: zId.optional(),
    settlement_date: zDateRange.optional(),
    limit: zInt().pipe(z.number().min(1).max(100)).default(25),
    starting_after: zId.optional(),
  })
  .strict();
const Empty = z.object({}).strict();
const SettlementDayBody = z.object({ date: zDate.optional(), livemode: zBool().optional() }).strict();

export const filtersOf = (q: {
  status?: (typeof STATUSES)[number];
  settlement_date?: { gte?: string; lte?: string };
}) => ({
  ...(q.status && { status: q.status }),
  ...(q.settlement_date?.gte && { settlementDateGte: q.settlement_date.gte }),
  ...(q.settlement_date?.lte && { settlementDateLte: q.settlement_date.lte }),
});

/** Merchant API: a merchant's settlement runs, their lines, and the lines as CSV (decision 0093). */
export function settlementRunsRouter(deps: { settlement: SettlementService }, docs: OperationDoc[]): Router {
  const router = Router();
  const route = createRoutes(router, docs);
  const tag = 'Settlement runs';
  const { settlement } = deps;

  route({
    method: 'get',
    path: '/v1/settlement-runs',
    summary: 'List settlement runs, newest first',
    tag,
    query: ListRuns,
    response: listOf(SettlementRunSchema),
    handler: async ({ query, scope }) => {
      const page = await settlement.listRuns(scope, filtersOf(query), pageOptions(query));
      return listResponse('/v1/settlement-runs', page.data, page.hasMore);
    },
  });

  route({
    method: 'get',
    path: '/v1/settlement-runs/:id',
    summary: 'Retrieve a settlement run',
    tag,
    response: SettlementRunSchema,
    handler: ({ params, scope }) => settlement.retrieveRun(scope, params.id!),
  });

  route({
    method: 'get',
    path: '/v1/settlement-runs/:id/lines',
    summary: "List a settlement run's lines, in the order they were gathered",
    tag,
    query: ListLines,
    response: listOf(SettlementLineSchema),
    handler: async ({ params, query, scope }) => {
      const page = await settlement.listLines(scope, params.id!, {
        limit: query.limit,
        ...(query.starting_after !== undefined && { startingAfter: Number(query.starting_after) }),
      });
      return listResponse(`/v1/settlement-runs/${page.runId}/lines`, page.data, page.hasMore);
    },
  });

  // CSV is not JSON, so this one route writes its own response; it is documented all the same.
  docs.push({
    method: 'get',
    path: '/v1/settlement-runs/:id/lines.csv',
    summary: "Export a settlement run's lines as CSV (text/csv, header row, whole ISK)",
    tag,
    auth: true,
    response: z.string(),
    status: 200,
  });
  router.get('/v1/settlement-runs/:id/lines.csv', async (req: Request, res: Response) => {
    context(res).route = '/v1/settlement-runs/:id/lines.csv';
    const scope = scopeOf(res);
    const { runId, csv } = await settlement.linesCsv(scope, String(req.params.id));
    res
      .status(200)
      .type('text/csv; charset=utf-8')
      .set('content-disposition', `attachment; filename="${runId}-lines.csv"`)
      .send(csv);
  });

  return router;
}

/**
 * Operator API for settlement: runs across merchants, approval (an audited operator action), and
 * settlement days on demand. Mounted before the general operator router, with the same credential.
 */
export function settlementOperatorRouter(deps: {
  access: Pick<AccessService, 'operatorForToken'>;
  settlement: SettlementService;
}): Router {
  const router = Router();
  const { settlement } = deps;
  const auth = authenticateOperator(deps.access);
  router.use(['/v1/operator/settlement-runs', '/v1/operator/settlement-days'], auth);

  router.get(
    '/v1/operator/settlement-runs',
    jsonHandler('/v1/operator/settlement-runs', OperatorListRuns, 'query', async (q) => {
      const page = await settlement.listForOperator(
        q.livemode,
        { ...filtersOf(q), ...(q.merchant && { merchantId: q.merchant }) },
        { limit: q.limit, ...(q.starting_after && { startingAfter: q.starting_after }) },
      );
      return listResponse('/v1/operator/settlement-runs', page.data, page.hasMore);
    }),
  );
  router.post(
    '/v1/operator/settlement-runs/:id/approve',
    jsonHandler('/v1/operator/settlement-runs/:id/approve', Empty, 'body', (_b, req, res) =>
      settlement.approveRun(String(req.params.id), operatorActor(operatorOf(res))),
    ),
  );
  router.post(
    '/v1/operator/settlement-runs/:id/retry',
    jsonHandler('/v1/operator/settlement-runs/:id/retry', Empty, 'body', (_b, req, res) =>
      settlement.retryRun(String(req.params.id), operatorActor(operatorOf(res))),
    ),
  );
  router.post(
    '/v1/operator/settlement-days',
    jsonHandler('/v1/operator/settlement-days', SettlementDayBody, 'body', (b) =>
      settlement.runSettlementDay({
        livemode: b.livemode ?? false,
        ...(b.date !== undefined && { date: b.date }),
      }),
    ),
  );
  return router;
}
