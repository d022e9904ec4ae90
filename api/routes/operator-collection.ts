import { Router } from 'express';
import { z } from 'zod';
import type { AccessService } from '../../services/access';
import type { RateTable } from '../../services/collection/rate-table';
import type { CollectionPolicies } from '../../services/collection/collection-policy';
import { COLLECTION_CAP_KEYS } from '../../domain/collection-caps';
import { NotFoundError } from '../../domain/errors';
import { zBool, zInt } from '../validation';
import { jsonHandler } from '../route';
import { authenticateOperator } from '../middleware/operator-auth';

const Env = z.object({ livemode: zBool() }).strict();
const AddRate = z
  .object({
    livemode: zBool(),
    valid_from: z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date YYYY-MM-DD'),
    consumer: z.number(),
    business: z.number(),
    source: z.string().min(1).max(500).describe('The Central Bank notice the rate is from'),
  })
  .strict();
const SetCap = z
  .object({
    livemode: zBool(),
    amount: zInt().pipe(z.number().min(0).max(1_000_000)),
    source: z.string().min(1).max(500).describe('The regulation the cap is from'),
  })
  .strict();

/**
 * The operator's collection data (decisions 0244, 0245): the published default-interest rates and
 * the collection cost caps, per environment. Operator tokens, not API keys; not in the
 * merchant-facing OpenAPI document (decision 0011).
 */
export function operatorCollectionRouter(deps: {
  access: Pick<AccessService, 'operatorForToken'>;
  rates: RateTable;
  policies: CollectionPolicies;
}): Router {
  const router = Router();
  router.use('/v1/operator', authenticateOperator(deps.access));
  router.get(
    '/v1/operator/default_interest_rates',
    jsonHandler('/v1/operator/default_interest_rates', Env, 'query', async (q) => ({
      object: 'list',
      data: await deps.rates.list(q.livemode),
    })),
  );
  router.post(
    '/v1/operator/default_interest_rates',
    jsonHandler('/v1/operator/default_interest_rates', AddRate, 'body', (b) => deps.rates.add(b)),
  );
  router.get(
    '/v1/operator/collection_caps',
    jsonHandler('/v1/operator/collection_caps', Env, 'query', async (q) => ({
      object: 'list',
      data: await deps.policies.listCaps(q.livemode),
    })),
  );
  router.post(
    '/v1/operator/collection_caps/:key',
    jsonHandler('/v1/operator/collection_caps/:key', SetCap, 'body', (b, req) => {
      const key = z.enum(COLLECTION_CAP_KEYS).safeParse(req.params.key);
      if (!key.success)
        return Promise.reject(
          new NotFoundError(`No such collection cap: '${String(req.params.key)}'`, 'key'),
        );
      return deps.policies.setCap({
        livemode: b.livemode,
        key: key.data,
        amount: b.amount,
        source: b.source,
      });
    }),
  );
  return router;
}
