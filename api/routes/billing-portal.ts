import { Router } from 'express';
import { z } from 'zod';
import type { Knex } from '../../db/knex';
import type { OperationDoc } from '../openapi';
import { createPortalSessionRepository } from '../../db/billing-portal-sessions';
import { InvalidRequestError, NotFoundError } from '../../domain/errors';
import { createRoutes } from '../route';
import { unix } from '../../domain/unix-time';
import { zId } from '../fields';

const CreatePortalSession = z
  .object({
    customer: zId,
    return_url: z.url().max(2000),
    locale: z.enum(['is', 'en']).optional(),
    allowed_prices: z.array(zId).max(20).optional().describe('Prices the customer may switch to'),
  })
  .strict();

const PortalSessionSchema = z.object({
  id: z.string(),
  object: z.literal('billing_portal.session'),
  livemode: z.boolean(),
  customer: z.string(),
  return_url: z.string(),
  locale: z.enum(['is', 'en']).nullable(),
  url: z.string().describe('Single use; expires after 30 minutes'),
  expires_at: z.number(),
  created_at: z.number(),
});

/** Billing portal sessions (decision 0047). */
export function billingPortalRouter(
  deps: { knex: Knex; publicBaseUrl: string },
  docs: OperationDoc[],
): Router {
  const router = Router();
  const route = createRoutes(router, docs);
  const sessions = createPortalSessionRepository(deps.knex);

  route({
    method: 'post',
    path: '/v1/billing_portal/sessions',
    summary: 'Create a customer portal session: a single-use, expiring URL',
    tag: 'Billing Portal',
    body: CreatePortalSession,
    response: PortalSessionSchema,
    handler: async ({ body, scope }) => {
      const customer = await deps
        .knex('customers')
        .where({ id: body.customer, merchant_id: scope.merchantId, livemode: scope.livemode })
        .whereNull('deleted_at')
        .first<{ id: string } | undefined>('id');
      if (!customer) throw new NotFoundError(`No such customer: '${body.customer}'`, 'customer');
      const allowed = body.allowed_prices ?? [];
      if (allowed.length > 0) {
        const found = await deps
          .knex('prices')
          .whereIn('id', allowed)
          .where({ merchant_id: scope.merchantId, livemode: scope.livemode, type: 'recurring', active: true })
          .pluck<string[]>('id');
        const missing = allowed.find((p) => !found.includes(p));
        if (missing)
          throw new InvalidRequestError(`No active recurring price: '${missing}'`, {
            code: 'parameter_invalid',
            param: 'allowed_prices',
          });
      }
      const { row, token } = await sessions.create(scope, {
        customerId: customer.id,
        returnUrl: body.return_url,
        locale: body.locale ?? null,
        allowedPrices: allowed,
      });
      return {
        id: row.id,
        object: 'billing_portal.session' as const,
        livemode: row.livemode,
        customer: row.customer_id,
        return_url: row.return_url,
        locale: row.locale,
        url: `${deps.publicBaseUrl}/portal/${token}`,
        expires_at: unix(row.expires_at),
        created_at: unix(row.created_at),
      };
    },
  });
  return router;
}
