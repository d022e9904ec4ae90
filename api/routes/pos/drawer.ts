import { Router } from 'express';
import { z } from 'zod';
import type { OperationDoc } from '../../openapi';
import type { TillService } from '../../../services/pos/till';
import { PosDrawerEventSchema } from '../../../services/pos/drawer-event-object';
import { createRoutes } from '../../route';
import { zAmount, zLine } from '../../fields';
import { actor, tag, zStaff } from './shared';

/**
 * Cash moved in and out of the drawer outside a sale, and the drawer opened without one.
 */
export function posDrawerRouter(deps: { till: TillService }, docs: OperationDoc[]): Router {
  const router = Router();
  const route = createRoutes(router, docs);
  const { till } = deps;
  route({
    method: 'post',
    path: '/v1/pos/registers/:id/drawer_events',
    summary: 'Paid in, paid out (a manager), or the drawer opened without a sale',
    tag,
    body: z
      .object({
        kind: z.enum(['paid_in', 'paid_out', 'no_sale']),
        amount: zAmount().optional(),
        reason: zLine(255).optional(),
        staff: zStaff,
      })
      .strict(),
    response: PosDrawerEventSchema,
    errors: [403],
    handler: ({ params, body, scope, res }) => till.drawerEvent(scope, actor(res), params.id!, body),
  });
  return router;
}
