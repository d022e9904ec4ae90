import { Router } from 'express';
import { z } from 'zod';
import type { OperationDoc } from '../../openapi';
import type { TillService } from '../../../services/pos/till';
import { PosShiftSchema } from '../../../services/pos/shift-object';
import { createRoutes } from '../../route';
import { zAmount } from '../../fields';
import { actor, tag, zStaff } from './shared';

/**
 * The register's drawer shift: opened with a float, closed with the cash counted.
 */
export function posShiftsRouter(deps: { till: TillService }, docs: OperationDoc[]): Router {
  const router = Router();
  const route = createRoutes(router, docs);
  const { till } = deps;
  route({
    method: 'get',
    path: '/v1/pos/registers/:id/shift',
    summary: 'The register’s open drawer shift (409 pos_no_open_shift when none is open)',
    tag,
    response: PosShiftSchema,
    errors: [403, 409],
    handler: ({ params, scope, res }) => till.currentShift(scope, actor(res), params.id!),
  });
  route({
    method: 'post',
    path: '/v1/pos/registers/:id/shift/open',
    summary: 'Open a drawer shift with a float',
    tag,
    body: z.object({ opening_float: zAmount(), staff: zStaff }).strict(),
    response: PosShiftSchema,
    errors: [403],
    handler: ({ params, body, scope, res }) => till.openShift(scope, actor(res), params.id!, body),
  });
  route({
    method: 'post',
    path: '/v1/pos/registers/:id/shift/close',
    summary: 'Close the drawer shift with the cash counted; expected against counted is kept',
    tag,
    body: z.object({ counted_cash: zAmount(), staff: zStaff }).strict(),
    response: PosShiftSchema,
    errors: [403],
    handler: ({ params, body, scope, res }) => till.closeShift(scope, actor(res), params.id!, body),
  });
  return router;
}
