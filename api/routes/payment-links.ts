import { Router } from 'express';
import { z } from 'zod';
import type { OperationDoc } from '../openapi';
import type { PaymentLinkService } from '../../services/payment-links/payment-links';
import { PaymentLinkSchema } from '../../services/payment-links/payment-link-object';
import { createRoutes } from '../route';
import { listOf, listResponse } from '../list';
import { zBool, zInt } from '../validation';
import { pageOptions, pageQuery, zStoredMetadata } from '../fields';
import { SessionTemplate } from './checkout-sessions';

const zLimit = zInt().pipe(z.number().min(1).max(1_000_000_000));
export const CreateLink = SessionTemplate.omit({ metadata: true })
  .extend({
    mode: z
      .enum(['payment', 'subscription'])
      .default('payment')
      .describe('subscription: each checkout signs the buyer up to the recurring price of the one item'),
    subscription_data: z
      .object({
        trial_period_days: zInt().pipe(z.number().min(1).max(730)).optional(),
        metadata: zStoredMetadata.optional(),
      })
      .strict()
      .optional()
      .describe("mode subscription: a trial for every sign-up, and the subscriptions' metadata"),
    completed_sessions_limit: zLimit.nullable().optional(),
    metadata: zStoredMetadata.optional(),
  })
  .strict();
export const LinkListQuery = pageQuery.extend({ active: zBool().optional() }).strict();
const UpdateLink = z
  .object({
    active: zBool().optional(),
    completed_sessions_limit: zLimit.nullable().optional(),
    metadata: zStoredMetadata.optional(),
  })
  .strict();

/** Payment links: a reusable URL opening a new checkout session per visit; deactivated, never deleted. */
export function paymentLinksRouter(deps: { paymentLinks: PaymentLinkService }, docs: OperationDoc[]): Router {
  const router = Router();
  const route = createRoutes(router, docs);
  const tag = 'Payment Links';
  const { paymentLinks } = deps;

  route({
    method: 'post',
    path: '/v1/payment-links',
    summary: 'Create a payment link',
    tag,
    body: CreateLink,
    response: PaymentLinkSchema,
    handler: ({ body, scope }) => {
      const { currency: _currency, ...input } = body;
      return paymentLinks.create(scope, input);
    },
  });

  route({
    method: 'get',
    path: '/v1/payment-links',
    summary: 'List payment links, newest first',
    tag,
    query: LinkListQuery,
    response: listOf(PaymentLinkSchema),
    handler: async ({ query, scope }) => {
      const page = await paymentLinks.list(scope, { ...pageOptions(query), active: query.active });
      return listResponse('/v1/payment-links', page.data, page.hasMore);
    },
  });

  route({
    method: 'get',
    path: '/v1/payment-links/:id',
    summary: 'Retrieve a payment link',
    tag,
    response: PaymentLinkSchema,
    handler: ({ params, scope }) => paymentLinks.retrieve(scope, params.id!),
  });

  route({
    method: 'post',
    path: '/v1/payment-links/:id',
    summary: 'Update a payment link: active flag, limit, metadata',
    tag,
    body: UpdateLink,
    response: PaymentLinkSchema,
    handler: ({ params, body, scope }) => paymentLinks.update(scope, params.id!, body),
  });

  route({
    method: 'delete',
    path: '/v1/payment-links/:id',
    summary: 'Refused: payment links are deactivated (active=false), never deleted',
    tag,
    response: z.never(),
    handler: ({ params, scope }) => paymentLinks.delete(scope, params.id!),
  });

  return router;
}
