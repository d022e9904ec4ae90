import { Router, type Request } from 'express';
import { z } from 'zod';
import type { AccessService } from '../../services/access';
import type { MerchantReviewService } from '../../services/operator/merchant-review';
import { APPLICATION_STATUSES } from '../../domain/capabilities';
import { zBool, zInt } from '../validation';
import { jsonHandler } from '../route';
import { listResponse } from '../list';
import { authenticateOperator, operatorOf } from '../middleware/operator-auth';
import { routeNotFound } from '../middleware/errors';

const ListQuery = z
  .object({
    status: z.enum(APPLICATION_STATUSES).optional(),
    limit: zInt().pipe(z.number().min(1).max(100)).default(25),
    starting_after: z.string().min(1).max(64).optional(),
  })
  .strict();
const Empty = z.object({}).strict();
const Reject = z.object({ reason: z.string().min(1).max(1000) }).strict();
const Features = z.object({ pos: zBool() }).strict();

/**
 * The operator API (docs/decisions/0011-operators.md): review applications, activate the card
 * acquirer, record the claims agreement, switch features. Guarded by operator tokens, not API keys,
 * and left out of the merchant-facing OpenAPI document.
 */
export function operatorRouter(deps: {
  access: Pick<AccessService, 'operatorForToken'>;
  merchants: MerchantReviewService;
}): Router {
  const router = Router();
  const { merchants } = deps;
  router.use('/v1/operator', authenticateOperator(deps.access));

  const id = (req: Request) => String(req.params.id);

  router.get(
    '/v1/operator/merchants',
    jsonHandler('/v1/operator/merchants', ListQuery, 'query', async (q) => {
      const page = await merchants.list({
        limit: q.limit,
        ...(q.status && { status: q.status }),
        ...(q.starting_after && { startingAfter: q.starting_after }),
      });
      return listResponse('/v1/operator/merchants', page.data, page.hasMore);
    }),
  );
  router.get(
    '/v1/operator/merchants/:id',
    jsonHandler('/v1/operator/merchants/:id', Empty, 'query', (_q, req) => merchants.retrieve(id(req))),
  );
  router.post(
    '/v1/operator/merchants/:id/approve',
    jsonHandler('/v1/operator/merchants/:id/approve', Empty, 'body', (_b, req, res) =>
      merchants.approve(id(req), operatorOf(res).id),
    ),
  );
  router.post(
    '/v1/operator/merchants/:id/reject',
    jsonHandler('/v1/operator/merchants/:id/reject', Reject, 'body', (b, req, res) =>
      merchants.reject(id(req), operatorOf(res).id, b.reason),
    ),
  );
  router.post(
    '/v1/operator/merchants/:id/card-acquirer/activate',
    jsonHandler('/v1/operator/merchants/:id/card-acquirer/activate', Empty, 'body', (_b, req) =>
      merchants.activateCardAcquirer(id(req)),
    ),
  );
  router.post(
    '/v1/operator/merchants/:id/claims-agreement/sign',
    jsonHandler('/v1/operator/merchants/:id/claims-agreement/sign', Empty, 'body', (_b, req) =>
      merchants.signClaimsAgreement(id(req)),
    ),
  );
  router.patch(
    '/v1/operator/merchants/:id/features',
    jsonHandler('/v1/operator/merchants/:id/features', Features, 'body', (b, req) =>
      merchants.setFeatures(id(req), { pos: b.pos }),
    ),
  );
  router.use('/v1/operator', routeNotFound);

  return router;
}
