import { Router } from 'express';
import { z } from 'zod';
import type { OperationDoc } from '../../openapi';
import type { TillService } from '../../../services/pos/till';
import { PosRefundSchema } from '../../../services/pos/refund-object';
import { createRoutes } from '../../route';
import { zAmount } from '../../fields';
import { actor, tag, zStaff } from './shared';

/**
 * Refunds of a sale (a manager), to cash from the drawer or to the card it was paid with.
 */
export function posRefundsRouter(deps: { till: TillService }, docs: OperationDoc[]): Router {
  const router = Router();
  const route = createRoutes(router, docs);
  const { till } = deps;
  route({
    method: 'post',
    path: '/v1/pos/sales/:id/refunds',
    summary: 'Refund a sale (a manager), to cash from the drawer or to the card it was paid with',
    tag,
    body: z
      .object({
        method: z.enum(['cash', 'card']),
        amount: zAmount().pipe(z.number().min(1)).optional(),
        staff: zStaff,
      })
      .strict(),
    response: PosRefundSchema,
    errors: [403],
    handler: ({ params, body, scope, res, req }) =>
      till.refundSale(scope, actor(res), params.id!, body, req.get('idempotency-key') ?? undefined),
  });
  return router;
}
