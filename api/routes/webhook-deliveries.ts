import { Router } from 'express';
import { z } from 'zod';
import type { Knex } from '../../db/knex';
import type { Logger } from '../../stack/logger';
import type { Scope } from '../../domain/scope';
import type { OperationDoc } from '../openapi';
import type { WebhookDispatcher } from '../../engine/webhook-dispatch';
import { createChannelRepository } from '../../db/notification-channels';
import { createDeliveryRepository, type DeliveryRow } from '../../db/webhook-deliveries';
import { ConflictError, NotFoundError } from '../../domain/errors';
import { createRoutes } from '../route';
import { listOf, listQuery, listResponse } from '../list';
import { DeliverySchema, presentDelivery } from './notification-channel-objects';
import { createChannelLookup, createChannelWaker } from '../../services/notification-channels';

const DeliveryListQuery = listQuery
  .extend({ status: z.enum(['pending', 'succeeded', 'failed']).optional() })
  .strict();

export interface DeliveryRouterDeps {
  knex: Knex;
  log: Logger;
  dispatcher: WebhookDispatcher;
}

/** A channel's webhook deliveries: list, retrieve with every attempt, and resend (decision 0005). */
export function webhookDeliveriesRouter(deps: DeliveryRouterDeps, docs: OperationDoc[]): Router {
  const router = Router();
  const route = createRoutes(router, docs);
  const channels = createChannelRepository(deps.knex);
  const deliveries = createDeliveryRepository(deps.knex);
  const findChannel = createChannelLookup(channels);
  const wake = createChannelWaker(deps.dispatcher, deps.log);
  const tag = 'Notification Channels';

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
