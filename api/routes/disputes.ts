import { Router, raw as rawBody } from 'express';
import { z } from 'zod';
import type { OperationDoc } from '../openapi';
import type { DisputeService } from '../../services/disputes/disputes-service';
import type { DisputeNotifications } from '../../services/disputes/dispute-notifications';
import { DisputeSchema, EvidenceInput } from '../../services/disputes/dispute-object';
import { createRoutes } from '../route';
import { listOf, listResponse } from '../list';
import { pageOptions, pageQuery, zId } from '../fields';

const DisputeListQuery = pageQuery.extend({ payment_intent: zId.optional() }).strict();
const SubmitEvidence = z.object({ evidence: EvidenceInput }).strict();
const CloseDispute = z.object({}).strict();

/** `/v1/disputes` (decision 0156): the card disputes of the merchant's payments. */
export function disputesRouter(deps: { disputes: DisputeService }, docs: OperationDoc[]): Router {
  const router = Router();
  const route = createRoutes(router, docs);
  const { disputes } = deps;
  const tag = 'Disputes';

  route({
    method: 'get',
    path: '/v1/disputes',
    summary: 'List disputes, newest first',
    tag,
    query: DisputeListQuery,
    response: listOf(DisputeSchema),
    handler: async ({ query, scope }) => {
      const page = await disputes.list(scope, {
        ...pageOptions(query),
        ...(query.payment_intent !== undefined && { paymentIntentId: query.payment_intent }),
      });
      return listResponse('/v1/disputes', page.data, page.hasMore);
    },
  });

  route({
    method: 'get',
    path: '/v1/disputes/:id',
    summary: 'Retrieve a dispute',
    tag,
    response: DisputeSchema,
    handler: ({ params, scope }) => disputes.retrieve(scope, params.id!),
  });

  route({
    method: 'post',
    path: '/v1/disputes/:id',
    summary:
      'Submit evidence on a dispute before its deadline; it goes under review (after the deadline: 400)',
    tag,
    body: SubmitEvidence,
    response: DisputeSchema,
    handler: ({ params, body, scope }) =>
      disputes.submitEvidence(scope, params.id!, definedOnly(body.evidence)),
  });

  route({
    method: 'post',
    path: '/v1/disputes/:id/close',
    summary: 'Accept a dispute: it closes as lost and the withdrawn amount stays withdrawn',
    tag,
    body: CloseDispute,
    response: DisputeSchema,
    handler: ({ params, scope }) => disputes.close(scope, params.id!),
  });

  return router;
}

function definedOnly(evidence: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(evidence).filter((e): e is [string, string] => e[1] !== undefined),
  );
}

/**
 * `POST /acquirer/notifications`: the card acquirer's dispute notifications (decision 0155). No API
 * key: the acquirer's signature over the raw body is checked through the CardAcquirer. Not part of
 * the merchant API, so not in its OpenAPI document (as the acquirer's own protocol is not).
 */
export function acquirerNotificationsRouter(deps: {
  notifications: DisputeNotifications;
  bodyLimitBytes: number;
}): Router {
  const router = Router();
  router.post(
    '/acquirer/notifications',
    rawBody({ type: () => true, limit: deps.bodyLimitBytes }),
    async (req, res) => {
      const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      res.json(await deps.notifications.receive(body, req.headers));
    },
  );
  return router;
}
