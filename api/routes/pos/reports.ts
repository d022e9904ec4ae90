import { Router } from 'express';
import { z } from 'zod';
import type { OperationDoc } from '../../openapi';
import type { TillService } from '../../../services/pos/till';
import { PosXReportSchema, PosZReportSchema } from '../../../services/pos/report-object';
import { createRoutes } from '../../route';
import { listOf } from '../../list';
import { pageOptions } from '../../fields';
import { actor, list, RegisterQuery, tag, zStaff } from './shared';

/**
 * The X-report (running figures) and the Z-reports that close a register's day (decision 0128).
 */
export function posReportsRouter(deps: { till: TillService }, docs: OperationDoc[]): Router {
  const router = Router();
  const route = createRoutes(router, docs);
  const { till } = deps;
  route({
    method: 'get',
    path: '/v1/pos/registers/:id/x_report',
    summary: 'The X-report: running figures since the last Z-report; nothing is closed',
    tag,
    response: PosXReportSchema,
    errors: [403],
    handler: ({ params, scope, res }) => till.xReport(scope, actor(res), params.id!),
  });
  route({
    method: 'post',
    path: '/v1/pos/registers/:id/z_reports',
    summary: 'Make the Z-report (a manager): closes the register’s day; immutable once made',
    tag,
    body: z.object({ staff: zStaff }).strict(),
    response: PosZReportSchema,
    errors: [403],
    handler: ({ params, body, scope, res }) => till.makeZReport(scope, actor(res), params.id!, body),
  });
  route({
    method: 'get',
    path: '/v1/pos/z_reports',
    summary: 'List Z-reports, newest first',
    tag,
    query: RegisterQuery,
    response: listOf(PosZReportSchema),
    errors: [403],
    handler: async ({ query, scope, res }) =>
      list(
        '/v1/pos/z_reports',
        await till.listZReports(scope, actor(res), { ...pageOptions(query), registerId: query.register }),
      ),
  });
  route({
    method: 'get',
    path: '/v1/pos/z_reports/:id',
    summary: 'Retrieve a Z-report (they cannot be changed or deleted)',
    tag,
    response: PosZReportSchema,
    errors: [403],
    handler: ({ params, scope, res }) => till.retrieveZReport(scope, actor(res), params.id!),
  });
  return router;
}
