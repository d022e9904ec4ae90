import { Router } from 'express';
import { z } from 'zod';
import type { OperationDoc } from '../openapi';
import type { NotificationChannelService } from '../../services/channels/notification-channels-service';
import { ALL_EVENTS, EVENT_TYPES } from '../../domain/event-types';
import { createRoutes } from '../route';
import { pageOptions } from '../fields';
import { listOf, listQuery, listResponse } from '../list';
import { zMetadata } from '../validation';
import { ChannelSchema } from '../../services/channels/notification-channel-object';

const Subscriptions = z
  .array(z.enum([...EVENT_TYPES, ALL_EVENTS]))
  .min(1)
  .max(EVENT_TYPES.length + 1);
const Config = z.object({ url: z.string().min(1).max(2048) }).strict();

const CreateChannel = z
  .object({
    type: z.enum(['webhook', 'chat']),
    config: Config,
    event_subscriptions: Subscriptions,
    description: z.string().max(500).nullable().optional(),
    metadata: zMetadata.optional(),
  })
  .strict();

const UpdateChannel = z
  .object({
    config: Config.optional(),
    event_subscriptions: Subscriptions.optional(),
    status: z.enum(['enabled', 'disabled']).optional(),
    description: z.string().max(500).nullable().optional(),
    metadata: zMetadata.optional(),
  })
  .strict();

/** The longest overlap of a rotated secret: a week, time for any deployment to pick up the new one. */
const MAX_OVERLAP_SECONDS = 7 * 24 * 3600;
const RotateSecret = z
  .object({
    previous_secret_expires_in: z
      .number()
      .int()
      .min(0)
      .max(MAX_OVERLAP_SECONDS)
      .default(24 * 3600)
      .describe(
        'Seconds the previous secret keeps signing X-Service-Signature-Previous; 0 ends it now. Default 86400',
      ),
  })
  .strict();

const TestWebhooks = z
  .object({
    channel: z.string().min(1).max(64).optional().describe('One channel; omitted, every enabled channel'),
  })
  .strict();

/** Notification channels (spec §4.6): create, list, retrieve, update, delete, and test events. */
export function notificationChannelsRouter(
  deps: { channels: NotificationChannelService },
  docs: OperationDoc[],
): Router {
  const router = Router();
  const route = createRoutes(router, docs);
  const { channels } = deps;
  const tag = 'Notification Channels';

  route({
    method: 'post',
    path: '/v1/notification-channels',
    summary: 'Create a notification channel',
    tag,
    body: CreateChannel,
    response: ChannelSchema,
    handler: ({ body, scope }) =>
      channels.create(scope, {
        type: body.type,
        url: body.config.url,
        eventSubscriptions: body.event_subscriptions,
        description: body.description,
        metadata: body.metadata,
      }),
  });

  route({
    method: 'get',
    path: '/v1/notification-channels',
    summary: 'List notification channels, newest first',
    tag,
    query: listQuery,
    response: listOf(ChannelSchema),
    handler: async ({ query, scope }) => {
      const page = await channels.list(scope, pageOptions(query));
      return listResponse('/v1/notification-channels', page.data, page.hasMore);
    },
  });

  route({
    method: 'post',
    path: '/v1/notification-channels/test-webhooks',
    summary: 'Send a debug.check event to one channel or to every enabled channel',
    tag,
    body: TestWebhooks,
    response: z.object({
      object: z.literal('test_webhook'),
      deliveries: z.array(z.object({ id: z.string(), channel: z.string(), event: z.string() })),
    }),
    handler: ({ body, scope }) => channels.sendTestEvents(scope, body.channel),
  });

  route({
    method: 'get',
    path: '/v1/notification-channels/:id',
    summary: 'Retrieve a notification channel, with its signing secret',
    tag,
    response: ChannelSchema,
    handler: ({ params, scope }) => channels.retrieve(scope, params.id!),
  });

  route({
    method: 'patch',
    path: '/v1/notification-channels/:id',
    summary: 'Update the URL, subscriptions, status, description or metadata of a channel',
    tag,
    body: UpdateChannel,
    response: ChannelSchema,
    handler: ({ params, body, scope }) =>
      channels.update(scope, params.id!, {
        url: body.config?.url,
        eventSubscriptions: body.event_subscriptions,
        status: body.status,
        description: body.description,
        metadata: body.metadata,
      }),
  });

  route({
    method: 'post',
    path: '/v1/notification-channels/:id/rotate-secret',
    summary:
      'Rotate the signing secret: the new one signs X-Service-Signature at once, the previous one X-Service-Signature-Previous until it expires',
    tag,
    body: RotateSecret,
    response: ChannelSchema,
    handler: ({ params, body, scope }) =>
      channels.rotateSecret(scope, params.id!, body.previous_secret_expires_in),
  });

  route({
    method: 'delete',
    path: '/v1/notification-channels/:id',
    summary: 'Delete a notification channel; its pending deliveries are given up',
    tag,
    response: z.object({
      id: z.string(),
      object: z.literal('notification_channel'),
      deleted: z.literal(true),
    }),
    handler: ({ params, scope }) => channels.delete(scope, params.id!),
  });

  return router;
}
