import { Router } from 'express';
import { z } from 'zod';
import type { OperationDoc } from '../openapi';
import type { WebhookDeliveryService } from '../../services/channels/webhook-deliveries-service';
import { createRoutes } from '../route';
import { pageOptions } from '../fields';
import { listOf, listQuery, listResponse } from '../list';
import { DeliverySchema } from '../../services/channels/webhook-delivery-object';

const DeliveryListQuery = listQuery
  .extend({ status: z.enum(['pending', 'succeeded', 'failed']).optional() })
  .strict();

/** A channel's webhook deliveries: list, retrieve with every attempt, and resend (decision 0005). */
export function webhookDeliveriesRouter(
  deps: { deliveries: WebhookDeliveryService },
  docs: OperationDoc[],
): Router {
  const router = Router();
  const route = createRoutes(router, docs);
  const { deliveries } = deps;
  const tag = 'Notification Channels';

  route({
    method: 'get',
    path: '/v1/notification-channels/:id/deliveries',
    summary: "List a channel's deliveries, newest first",
    tag,
    query: DeliveryListQuery,
    response: listOf(DeliverySchema),
    handler: async ({ params, query, scope }) => {
      const page = await deliveries.list(scope, params.id!, {
        ...pageOptions(query),
        ...(query.status !== undefined && { status: query.status }),
      });
      return listResponse(`/v1/notification-channels/${page.channelId}/deliveries`, page.data, page.hasMore);
    },
  });

  route({
    method: 'get',
    path: '/v1/notification-channels/:id/deliveries/:delivery',
    summary: 'Retrieve a delivery with every attempt (time, status, latency, error)',
    tag,
    response: DeliverySchema,
    handler: ({ params, scope }) => deliveries.retrieve(scope, params.id!, params.delivery!),
  });

  route({
    method: 'post',
    path: '/v1/notification-channels/:id/deliveries/:delivery/resend',
    summary: 'Attempt a finished delivery once more, now',
    tag,
    body: z.object({}).strict(),
    response: DeliverySchema,
    handler: ({ params, scope }) => deliveries.resend(scope, params.id!, params.delivery!),
  });

  route({
    method: 'post',
    path: '/v1/events/:id/resend',
    summary: 'Send an event to a channel now (again, or for the first time if the channel never had it)',
    tag: 'Events',
    body: z.object({ channel: z.string().min(1).max(64) }).strict(),
    response: DeliverySchema,
    handler: ({ params, body, scope }) => deliveries.resendEvent(scope, params.id!, body.channel),
  });

  return router;
}
