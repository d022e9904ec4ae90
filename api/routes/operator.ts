import { Router, type Request } from 'express';
import { z } from 'zod';
import type { Knex } from '../../db/knex';
import { createMerchantRepository, type MerchantRow } from '../../db/merchants';
import { createAccessService } from '../../services/access';
import { APPLICATION_STATUSES } from '../../domain/capabilities';
import { zBool, zInt } from '../validation';
import { jsonHandler } from '../route';
import { listResponse } from '../list';
import { authenticateOperator, operatorOf } from '../middleware/operator-auth';
import { routeNotFound } from '../middleware/errors';
import { createMerchantAccountService, presentMerchant } from '../../services/merchant-account';

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

/** Operators see merchants as live mode sees them: onboarding is about going live. */
const present = (row: MerchantRow) => presentMerchant(row, true);

/**
 * The operator API (docs/decisions/0011-operators.md): review applications, activate the card
 * acquirer, record the claims agreement, switch features. Guarded by operator tokens, not API keys,
 * and left out of the merchant-facing OpenAPI document.
 */
export function operatorRouter(deps: { knex: Knex }): Router {
  const router = Router();
  const accounts = createMerchantAccountService(deps.knex);
  const merchants = createMerchantRepository(deps.knex);
  router.use('/v1/operator', authenticateOperator(createAccessService({ knex: deps.knex })));

  const id = (req: Request) => String(req.params.id);

  router.get(
    '/v1/operator/merchants',
    jsonHandler('/v1/operator/merchants', ListQuery, 'query', async (q) => {
      const page = await merchants.listByApplication({
        limit: q.limit,
        ...(q.status && { status: q.status }),
        ...(q.starting_after && { startingAfter: q.starting_after }),
      });
      return listResponse('/v1/operator/merchants', page.data.map(present), page.hasMore);
    }),
  );
  router.get(
    '/v1/operator/merchants/:id',
    jsonHandler('/v1/operator/merchants/:id', Empty, 'query', async (_q, req) =>
      present(await accounts.load(id(req))),
    ),
  );
  router.post(
    '/v1/operator/merchants/:id/approve',
    jsonHandler('/v1/operator/merchants/:id/approve', Empty, 'body', async (_b, req, res) =>
      present(await accounts.approve(id(req), operatorOf(res).id)),
    ),
  );
  router.post(
    '/v1/operator/merchants/:id/reject',
    jsonHandler('/v1/operator/merchants/:id/reject', Reject, 'body', async (b, req, res) =>
      present(await accounts.reject(id(req), operatorOf(res).id, b.reason)),
    ),
  );
  router.post(
    '/v1/operator/merchants/:id/card-acquirer/activate',
    jsonHandler('/v1/operator/merchants/:id/card-acquirer/activate', Empty, 'body', async (_b, req) =>
      present(await accounts.activateCardAcquirer(id(req))),
    ),
  );
  router.post(
    '/v1/operator/merchants/:id/claims-agreement/sign',
    jsonHandler('/v1/operator/merchants/:id/claims-agreement/sign', Empty, 'body', async (_b, req) =>
      present(await accounts.signClaimsAgreement(id(req))),
    ),
  );
  router.patch(
    '/v1/operator/merchants/:id/features',
    jsonHandler('/v1/operator/merchants/:id/features', Features, 'body', async (b, req) =>
      present(await accounts.setFeatures(id(req), { pos: b.pos })),
    ),
  );
  router.use('/v1/operator', routeNotFound);

  return router;
}
