import { Router } from 'express';
import { z } from 'zod';
import { LOCALES } from '../../domain/locale';
import type { OperationDoc } from '../openapi';
import type { BillingPortalService } from '../../services/billing-portal/billing-portal-sessions';
import { PortalSessionSchema } from '../../services/billing-portal/billing-portal-session-object';
import { createRoutes } from '../route';
import { zId } from '../fields';

const CreatePortalSession = z
  .object({
    customer: zId,
    return_url: z.url().max(2000),
    locale: z.enum(LOCALES).optional(),
    allowed_prices: z.array(zId).max(20).optional().describe('Prices the customer may switch to'),
  })
  .strict();

/** Billing portal sessions (decision 0047). */
export function billingPortalRouter(
  deps: { billingPortal: BillingPortalService },
  docs: OperationDoc[],
): Router {
  const router = Router();
  const route = createRoutes(router, docs);

  route({
    method: 'post',
    path: '/v1/billing_portal/sessions',
    summary: 'Create a customer portal session: a single-use, expiring URL',
    tag: 'Billing Portal',
    body: CreatePortalSession,
    response: PortalSessionSchema,
    handler: ({ body, scope }) => deps.billingPortal.createSession(scope, body),
  });
  return router;
}
