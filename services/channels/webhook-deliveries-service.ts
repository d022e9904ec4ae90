import type { Scope } from '../../domain/scope';
import type { Knex } from '../../db/knex';
import type { Logger } from '../../stack/logger';
import type { WebhookDispatcher } from '../../engine/webhook-dispatch';
import type { PageOptions } from '../../db/tenant';
import type { SecretBox } from '../../domain/secret-box';
import { createChannelRepository } from '../../db/notification-channels';
import { createDeliveryRepository, type DeliveryRow, type DeliveryStatus } from '../../db/webhook-deliveries';
import { ConflictError, NotFoundError } from '../../domain/errors';
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
  };
}

export type WebhookDeliveryService = ReturnType<typeof createWebhookDeliveryService>;
