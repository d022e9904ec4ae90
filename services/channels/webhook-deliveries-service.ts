import type { Scope } from '../../domain/scope';
import type { Knex } from '../../db/knex';
import type { Logger } from '../../stack/logger';
import type { WebhookDispatcher } from '../../engine/webhook-dispatch';
import type { PageOptions } from '../../db/tenant';
import type { SecretBox } from '../../domain/secret-box';
import { createChannelRepository } from '../../db/notification-channels';
import { createDeliveryRepository, type DeliveryRow, type DeliveryStatus } from '../../db/webhook-deliveries';
import { createEventRepository } from '../../db/events';
import { ConflictError, NotFoundError } from '../../domain/errors';
import { missingReference } from '../lookup';
import { createChannelLookup, createChannelWaker } from './channel-lookup';
import { presentDelivery, type DeliveryObject } from './webhook-delivery-object';

/** A channel's webhook deliveries: list, retrieve with every attempt, and resend (decision 0005). */
export function createWebhookDeliveryService(deps: {
  knex: Knex;
  log: Logger;
  dispatcher: WebhookDispatcher;
  secrets: SecretBox;
}) {
  const deliveries = createDeliveryRepository(deps.knex);
  const events = createEventRepository(deps.knex);
  const findChannel = createChannelLookup(createChannelRepository(deps.knex, deps.secrets));
  const wake = createChannelWaker(deps.dispatcher, deps.log);

  async function findDelivery(scope: Scope, channelId: string, deliveryId: string): Promise<DeliveryRow> {
    const channel = await findChannel(scope, channelId);
    const row = await deliveries.findById(scope, deliveryId);
    if (!row || row.channel_id !== channel.id)
      throw new NotFoundError(`No such delivery: '${deliveryId}'`, 'delivery');
    return row;
  }

  return {
    /** Newest first; `channelId` is the channel's id as found (for the list's URL). */
    async list(scope: Scope, channelId: string, opts: PageOptions & { status?: DeliveryStatus }) {
      const channel = await findChannel(scope, channelId);
      const page = await deliveries.listForChannel(scope, channel.id, opts);
      return { channelId: channel.id, data: page.data.map((d) => presentDelivery(d)), hasMore: page.hasMore };
    },

    async retrieve(scope: Scope, channelId: string, deliveryId: string): Promise<DeliveryObject> {
      const row = await findDelivery(scope, channelId, deliveryId);
      return presentDelivery(row, await deliveries.attempts(scope, row.id));
    },

    /** Attempts a finished delivery once more, now. */
    async resend(scope: Scope, channelId: string, deliveryId: string): Promise<DeliveryObject> {
      const row = await findDelivery(scope, channelId, deliveryId);
      return resendRow(scope, row);
    },

    /**
     * Sends an event to a channel now: the channel's delivery of it attempted once more, or a first
     * delivery when the channel never had the event (it was made later, or did not subscribe to it).
     */
    async resendEvent(scope: Scope, eventId: string, channelId: string): Promise<DeliveryObject> {
      const event = await events.findById(scope, eventId);
      if (!event) throw new NotFoundError(`No such event: '${eventId}'`, 'id');
      // The channel is named in the body: a missing one is the request's fault (400), not the path's.
      const channel = await findChannel(scope, channelId).catch((err: unknown) => {
        throw err instanceof NotFoundError
          ? missingReference('notification channel', channelId, 'channel')
          : err;
      });
      if (channel.status !== 'enabled')
        throw new ConflictError('The channel is disabled; enable it before resending', 'channel_disabled');
      const made = await deliveries.createForEvent(scope, event.id, channel.id);
      if ('existing' in made) return resendRow(scope, made.existing);
      await wake([channel.id]);
      return presentDelivery(made.created, []);
    },
  };

  async function resendRow(scope: Scope, row: DeliveryRow): Promise<DeliveryObject> {
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
  }
}

export type WebhookDeliveryService = ReturnType<typeof createWebhookDeliveryService>;
