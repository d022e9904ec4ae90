import type { Knex } from '../../db/knex';
import type { Logger } from '../../stack/logger';
import type { Scope } from '../../domain/scope';
import type { WebhookDispatcher } from '../../engine/webhook-dispatch';
import type { PageOptions } from '../../db/tenant';
import type { SecretBox } from '../../domain/secret-box';
import { createChannelRepository, type ChannelType } from '../../db/notification-channels';
import { createEventRepository } from '../../db/events';
import { createDeliveryRepository } from '../../db/webhook-deliveries';
import { InvalidRequestError, NotFoundError } from '../../domain/errors';
import { assertChannelUrl } from './channel-url';
import { createChannelLookup, createChannelWaker } from './channel-lookup';
import { presentChannel, type ChannelObject } from './notification-channel-object';
import { findReference } from '../lookup';

export interface ChannelServiceDeps {
  knex: Knex;
  log: Logger;
  dispatcher: WebhookDispatcher;
  /** Seals signing secrets at rest (decision 0112). */
  secrets: SecretBox;
  /** CIDR ranges the operator lets channels reach (WEBHOOK_ALLOW_PRIVATE_RANGES; decision 0111). */
  allowPrivateRanges?: readonly string[];
  /** Whether test channels may point at loopback (WEBHOOK_ALLOW_LOOPBACK; decision 0225). */
  allowLoopback?: boolean;
}

export interface CreateChannelInput {
  type: ChannelType;
  url: string;
  eventSubscriptions: string[];
  description?: string | null | undefined;
  metadata?: Record<string, string> | undefined;
}

export interface UpdateChannelInput {
  url?: string | undefined;
  eventSubscriptions?: string[] | undefined;
  status?: 'enabled' | 'disabled' | undefined;
  description?: string | null | undefined;
  metadata?: Record<string, string> | undefined;
}

/** Notification channels (spec §4.6): create, list, retrieve, update, delete, and test events. */
export function createNotificationChannelService(deps: ChannelServiceDeps) {
  const channels = createChannelRepository(deps.knex, deps.secrets);
  const events = createEventRepository(deps.knex);
  const deliveries = createDeliveryRepository(deps.knex);
  const findChannel = createChannelLookup(channels);
  const wake = createChannelWaker(deps.dispatcher, deps.log);
  const reach = { allowPrivateRanges: deps.allowPrivateRanges, allowLoopback: deps.allowLoopback };

  return {
    async create(scope: Scope, input: CreateChannelInput): Promise<ChannelObject> {
      await assertChannelUrl(input.url, scope.livemode, reach);
      const row = await channels.create(scope, {
        type: input.type,
        url: input.url,
        eventSubscriptions: input.eventSubscriptions,
        ...(input.description !== undefined && { description: input.description }),
        ...(input.metadata !== undefined && { metadata: input.metadata }),
      });
      return presentChannel(row, true);
    },

    /** Newest first, without signing secrets. */
    async list(scope: Scope, page: PageOptions) {
      const result = await channels.list(scope, page);
      return { data: result.data.map((r) => presentChannel(r, false)), hasMore: result.hasMore };
    },

    async retrieve(scope: Scope, id: string): Promise<ChannelObject> {
      return presentChannel(await findChannel(scope, id), true);
    },

    async update(scope: Scope, id: string, input: UpdateChannelInput): Promise<ChannelObject> {
      const before = await findChannel(scope, id);
      if (input.url !== undefined) await assertChannelUrl(input.url, scope.livemode, reach);
      const row = await channels.update(scope, before.id, {
        ...(input.url !== undefined && { url: input.url }),
        ...(input.eventSubscriptions && { eventSubscriptions: input.eventSubscriptions }),
        ...(input.status && { status: input.status }),
        ...(input.description !== undefined && { description: input.description }),
        ...(input.metadata !== undefined && { metadata: input.metadata }),
      });
      if (!row) throw new NotFoundError(`No such notification channel: '${id}'`, 'id');
      // A re-enabled channel resumes the deliveries that waited while it was disabled.
      if (before.status === 'disabled' && row.status === 'enabled') await wake([row.id]);
      return presentChannel(row, true);
    },

    /**
     * A new signing secret, at once; the previous one keeps signing X-Service-Signature-Previous for
     * `overlapSeconds` (0: not at all), so receivers can move to the new one without a failed
     * delivery (decision 0112).
     */
    async rotateSecret(scope: Scope, id: string, overlapSeconds: number): Promise<ChannelObject> {
      const found = await findChannel(scope, id);
      const row = await deps.knex.transaction((trx) =>
        channels.rotateSecret(scope, found.id, overlapSeconds, trx),
      );
      if (!row) throw new NotFoundError(`No such notification channel: '${id}'`, 'id');
      return presentChannel(row, true);
    },

    /** Deletes a channel; its pending deliveries are given up. */
    async delete(scope: Scope, id: string) {
      const found = await findChannel(scope, id);
      await deps.knex.transaction((trx) => channels.delete(scope, found.id, trx));
      await wake([found.id]);
      return { id: found.id, object: 'notification_channel' as const, deleted: true as const };
    },

    /** Records a `debug.check` event for one channel, or for each enabled channel, and wakes them. */
    async sendTestEvents(scope: Scope, channelId: string | undefined) {
      const targets = channelId
        ? [
            await findReference('notification channel', channelId, 'channel', () =>
              channels.findById(scope, channelId),
            ),
          ]
        : (await channels.list(scope, { limit: 100 })).data;
      const enabled = targets.filter((c) => c.status === 'enabled');
      if (enabled.length === 0) {
        throw new InvalidRequestError(
          channelId
            ? `Notification channel '${channelId}' is disabled`
            : 'No enabled notification channel to send a test event to',
          { code: 'no_enabled_channel', ...(channelId !== undefined && { param: 'channel' }) },
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
      const rows = await deliveries.listForEvents(
        scope,
        sent.map((s) => s.event),
      );
      return {
        object: 'test_webhook' as const,
        deliveries: rows.map((r) => ({ id: r.id, channel: r.channel_id, event: r.event_id })),
      };
    },
  };
}

export type NotificationChannelService = ReturnType<typeof createNotificationChannelService>;
