import { Router } from 'express';
import { z } from 'zod';
import type { Knex } from '../../db/knex';
import type { Logger } from '../../stack/logger';
import type { OperationDoc } from '../openapi';
import type { WebhookDispatcher } from '../../engine/webhook-dispatch';
import { createChannelRepository } from '../../db/notification-channels';
import { createEventRepository } from '../../db/events';
import { ALL_EVENTS, EVENT_TYPES } from '../../domain/event-types';
import { InvalidRequestError, NotFoundError } from '../../domain/errors';
import { createRoutes } from '../route';
import { listOf, listQuery, listResponse } from '../list';
import { zMetadata } from '../validation';
import { assertChannelUrl } from '../channel-url';
import { ChannelSchema, presentChannel } from './notification-channel-objects';
import { createChannelLookup, createChannelWaker } from '../../services/notification-channels';

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

const TestWebhooks = z
  .object({
    channel: z.string().min(1).max(64).optional().describe('One channel; omitted, every enabled channel'),
  })
  .strict();

export interface ChannelRouterDeps {
  knex: Knex;
  log: Logger;
  dispatcher: WebhookDispatcher;
}

/** Notification channels (spec §4.6): create, list, retrieve, update, delete, and test events. */
export function notificationChannelsRouter(deps: ChannelRouterDeps, docs: OperationDoc[]): Router {
  const router = Router();
  const route = createRoutes(router, docs);
  const channels = createChannelRepository(deps.knex);
  const events = createEventRepository(deps.knex);
  const findChannel = createChannelLookup(channels);
  const wake = createChannelWaker(deps.dispatcher, deps.log);
  const tag = 'Notification Channels';

  route({
    method: 'post',
    path: '/v1/notification-channels',
    summary: 'Create a notification channel',
    tag,
    body: CreateChannel,
    response: ChannelSchema,
    handler: async ({ body, scope }) => {
      await assertChannelUrl(body.config.url, scope.livemode);
      const row = await channels.create(scope, {
        type: body.type,
        url: body.config.url,
        eventSubscriptions: body.event_subscriptions,
        ...(body.description !== undefined && { description: body.description }),
        ...(body.metadata !== undefined && { metadata: body.metadata }),
      });
      return presentChannel(row, true);
    },
  });

  route({
    method: 'get',
    path: '/v1/notification-channels',
    summary: 'List notification channels, newest first',
    tag,
    query: listQuery,
    response: listOf(ChannelSchema),
    handler: async ({ query, scope }) => {
      const page = await channels.list(scope, {
        limit: query.limit,
        ...(query.starting_after !== undefined && { startingAfter: query.starting_after }),
        ...(query.ending_before !== undefined && { endingBefore: query.ending_before }),
      });
      return listResponse(
        '/v1/notification-channels',
        page.data.map((r) => presentChannel(r, false)),
        page.hasMore,
      );
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
    handler: async ({ body, scope }) => {
      const targets = body.channel
        ? [await findChannel(scope, body.channel)]
        : (await channels.list(scope, { limit: 100 })).data;
      const enabled = targets.filter((c) => c.status === 'enabled');
      if (enabled.length === 0) {
        throw new InvalidRequestError(
          body.channel
            ? `Notification channel '${body.channel}' is disabled`
            : 'No enabled notification channel to send a test event to',
          { code: 'no_enabled_channel', ...(body.channel !== undefined && { param: 'channel' }) },
        );
      }
      const sent = await deps.knex.transaction(async (trx) => {
        const out: { channel: string; event: string }[] = [];
        for (const channel of enabled) {
          const { event } = await events.record(
            scope,
            {
              type: 'debug.check',
              data: {
                id: channel.id,
                object: 'notification_channel',
                url: channel.url,
                message: 'Test event from Skil',
              },
              onlyChannelId: channel.id,
            },
            trx,
          );
          out.push({ channel: channel.id, event: event.id });
        }
        return out;
      });
      await wake(sent.map((s) => s.channel));
      const rows = await deps
        .knex('webhook_deliveries')
        .whereIn(
          'event_id',
          sent.map((s) => s.event),
        )
        .select<{ id: string; channel_id: string; event_id: string }[]>('id', 'channel_id', 'event_id');
      return {
        object: 'test_webhook' as const,
        deliveries: rows.map((r) => ({ id: r.id, channel: r.channel_id, event: r.event_id })),
      };
    },
  });

  route({
    method: 'get',
    path: '/v1/notification-channels/:id',
    summary: 'Retrieve a notification channel, with its signing secret',
    tag,
    response: ChannelSchema,
    handler: async ({ params, scope }) => presentChannel(await findChannel(scope, params.id!), true),
  });

  route({
    method: 'patch',
    path: '/v1/notification-channels/:id',
    summary: 'Update the URL, subscriptions, status, description or metadata of a channel',
    tag,
    body: UpdateChannel,
    response: ChannelSchema,
    handler: async ({ params, body, scope }) => {
      const before = await findChannel(scope, params.id!);
      if (body.config) await assertChannelUrl(body.config.url, scope.livemode);
      const row = await channels.update(scope, before.id, {
        ...(body.config && { url: body.config.url }),
        ...(body.event_subscriptions && { eventSubscriptions: body.event_subscriptions }),
        ...(body.status && { status: body.status }),
        ...(body.description !== undefined && { description: body.description }),
        ...(body.metadata !== undefined && { metadata: body.metadata }),
      });
      if (!row) throw new NotFoundError(`No such notification channel: '${params.id}'`, 'id');
      // A re-enabled channel resumes the deliveries that waited while it was disabled.
      if (before.status === 'disabled' && row.status === 'enabled') await wake([row.id]);
      return presentChannel(row, true);
    },
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
    handler: async ({ params, scope }) => {
      const found = await findChannel(scope, params.id!);
      await deps.knex.transaction((trx) => channels.delete(scope, found.id, trx));
      await wake([found.id]);
      return { id: found.id, object: 'notification_channel' as const, deleted: true as const };
    },
  });

  return router;
}
