import { Router } from 'express';
import { z } from 'zod';
import type { Knex } from '../../db/knex';
import type { Logger } from '../../stack/logger';
import type { Scope } from '../../domain/scope';
import type { OperationDoc } from '../openapi';
import type { WebhookDispatcher } from '../../engine/webhook-dispatch';
import { createChannelRepository, type ChannelRow } from '../../db/notification-channels';
import { createDeliveryRepository, type AttemptRow, type DeliveryRow } from '../../db/webhook-deliveries';
import { createEventRepository } from '../../db/events';
import { ALL_EVENTS, EVENT_TYPES } from '../../domain/event-types';
import { ConflictError, InvalidRequestError, NotFoundError } from '../../domain/errors';
import { createRoutes } from '../route';
import { listOf, listQuery, listResponse, unix } from '../list';
import { zMetadata } from '../validation';
import { assertChannelUrl } from '../channel-url';

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

const DeliveryListQuery = listQuery
  .extend({ status: z.enum(['pending', 'succeeded', 'failed']).optional() })
  .strict();

export const ChannelSchema = z.object({
  id: z.string(),
  object: z.literal('notification_channel'),
  livemode: z.boolean(),
  type: z.enum(['webhook', 'chat']),
  config: z.object({
    url: z.string(),
    secret: z.string().optional().describe('Signing secret; omitted in lists'),
  }),
  event_subscriptions: z.array(z.string()),
  status: z.enum(['enabled', 'disabled']),
  description: z.string().nullable(),
  metadata: z.record(z.string(), z.string()),
  created_at: z.number(),
  updated_at: z.number(),
});

const AttemptSchema = z.object({
  attempt: z.number(),
  outcome: z.enum(['in_progress', 'succeeded', 'failed']),
  started_at: z.number(),
  finished_at: z.number().nullable(),
  response_status: z.number().nullable(),
  latency_ms: z.number().nullable(),
  error: z.string().nullable(),
});

export const DeliverySchema = z.object({
  id: z.string(),
  object: z.literal('webhook_delivery'),
  livemode: z.boolean(),
  channel: z.string(),
  event: z.string(),
  status: z.enum(['pending', 'succeeded', 'failed']),
  attempt_count: z.number(),
  max_attempts: z.number(),
  next_attempt_at: z.number().nullable(),
  last_attempt_at: z.number().nullable(),
  created_at: z.number(),
  attempts: z.array(AttemptSchema).optional().describe('Every attempt; present when retrieving one delivery'),
});

function presentChannel(row: ChannelRow, withSecret: boolean) {
  return {
    id: row.id,
    object: 'notification_channel' as const,
    livemode: row.livemode,
    type: row.type,
    config: { url: row.url, ...(withSecret && { secret: row.secret }) },
    event_subscriptions: row.event_subscriptions,
    status: row.status,
    description: row.description,
    metadata: row.metadata,
    created_at: unix(row.created_at),
    updated_at: unix(row.updated_at),
  };
}

function presentDelivery(row: DeliveryRow, attempts?: AttemptRow[]) {
  return {
    id: row.id,
    object: 'webhook_delivery' as const,
    livemode: row.livemode,
    channel: row.channel_id,
    event: row.event_id,
    status: row.status,
    attempt_count: row.attempt_count,
    max_attempts: row.max_attempts,
    next_attempt_at: unix(row.next_attempt_at),
    last_attempt_at: unix(row.last_attempt_at),
    created_at: unix(row.created_at),
    ...(attempts && {
      attempts: attempts.map((a) => ({
        attempt: a.attempt_number,
        outcome: a.outcome,
        started_at: unix(a.started_at),
        finished_at: unix(a.finished_at),
        response_status: a.response_status,
        latency_ms: a.latency_ms,
        error: a.error,
      })),
    }),
  };
}

export interface ChannelRouterDeps {
  knex: Knex;
  log: Logger;
  dispatcher: WebhookDispatcher;
}

/** Notification channels (spec §4.6) with their deliveries, attempts and resends. */
export function notificationChannelsRouter(deps: ChannelRouterDeps, docs: OperationDoc[]): Router {
  const router = Router();
  const route = createRoutes(router, docs);
  const channels = createChannelRepository(deps.knex);
  const deliveries = createDeliveryRepository(deps.knex);
  const events = createEventRepository(deps.knex);
  const tag = 'Notification Channels';

  async function findChannel(scope: Scope, id: string): Promise<ChannelRow> {
    const row = await channels.findById(scope, id);
    if (row) return row;
    if (await channels.existsInOtherMode(scope, id)) {
      const [used, other] = scope.livemode ? ['live', 'test'] : ['test', 'live'];
      throw new NotFoundError(
        `No such notification channel: '${id}'; a similar object exists in ${other} mode, but a ${used} mode key was used to make this request.`,
        'id',
      );
    }
    throw new NotFoundError(`No such notification channel: '${id}'`, 'id');
  }

  /** Wakes channel workflows; if Temporal is away the relay schedule catches up within minutes. */
  async function wake(channelIds: string[]): Promise<void> {
    try {
      await deps.dispatcher.wake(channelIds);
    } catch (err) {
      deps.log.warn({ err, channelIds }, 'could not signal channel workflows; the relay will retry');
    }
  }

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

  route({
    method: 'get',
    path: '/v1/notification-channels/:id/deliveries',
    summary: "List a channel's deliveries, newest first",
    tag,
    query: DeliveryListQuery,
    response: listOf(DeliverySchema),
    handler: async ({ params, query, scope }) => {
      const channel = await findChannel(scope, params.id!);
      const page = await deliveries.listForChannel(scope, channel.id, {
        limit: query.limit,
        ...(query.starting_after !== undefined && { startingAfter: query.starting_after }),
        ...(query.ending_before !== undefined && { endingBefore: query.ending_before }),
        ...(query.status !== undefined && { status: query.status }),
      });
      return listResponse(
        `/v1/notification-channels/${channel.id}/deliveries`,
        page.data.map((d) => presentDelivery(d)),
        page.hasMore,
      );
    },
  });

  async function findDelivery(scope: Scope, channelId: string, deliveryId: string): Promise<DeliveryRow> {
    const channel = await findChannel(scope, channelId);
    const row = await deliveries.findById(scope, deliveryId);
    if (!row || row.channel_id !== channel.id)
      throw new NotFoundError(`No such delivery: '${deliveryId}'`, 'delivery');
    return row;
  }

  route({
    method: 'get',
    path: '/v1/notification-channels/:id/deliveries/:delivery',
    summary: 'Retrieve a delivery with every attempt (time, status, latency, error)',
    tag,
    response: DeliverySchema,
    handler: async ({ params, scope }) => {
      const row = await findDelivery(scope, params.id!, params.delivery!);
      return presentDelivery(row, await deliveries.attempts(scope, row.id));
    },
  });

  route({
    method: 'post',
    path: '/v1/notification-channels/:id/deliveries/:delivery/resend',
    summary: 'Attempt a finished delivery once more, now',
    tag,
    body: z.object({}).strict(),
    response: DeliverySchema,
    handler: async ({ params, scope }) => {
      const row = await findDelivery(scope, params.id!, params.delivery!);
      const channel = await findChannel(scope, row.channel_id);
      if (channel.status !== 'enabled')
        throw new ConflictError('The channel is disabled; enable it before resending', 'channel_disabled');
      const updated = await deliveries.resend(scope, row.id);
      if (!updated)
        throw new ConflictError(
          'The delivery is still pending; it will be attempted on its schedule',
          'delivery_pending',
        );
      await wake([row.channel_id]);
      return presentDelivery(updated, await deliveries.attempts(scope, row.id));
    },
  });

  return router;
}
