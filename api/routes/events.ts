import { Router } from 'express';
import { z } from 'zod';
import type { EventRepository } from '../../db/events';
import type { OperationDoc } from '../openapi';
import { createRoutes } from '../route';
import { listOf, listResponse } from '../list';
import { zInt } from '../validation';
import { toEventPayload } from '../../domain/event-payload';
import { NotFoundError } from '../../domain/errors';

export const EventSchema = z.object({
  id: z.string(),
  object: z.literal('event'),
  type: z.string(),
  created_at: z.string().describe('ISO 8601 with milliseconds, UTC'),
  data: z.record(z.string(), z.unknown()),
  merchant_id: z.string(),
  environment: z.enum(['live', 'test']),
});

const EventListQuery = z
  .object({
    limit: zInt().pipe(z.number().min(1).max(100)).default(25),
    after: z.iso
      .datetime({ offset: true })
      .optional()
      .describe('Only events created after this ISO 8601 time'),
    starting_after: z
      .string()
      .min(1)
      .max(64)
      .optional()
      .describe('Only events after this event id (lossless paging)'),
    type: z.string().min(1).max(100).optional(),
  })
  .strict();

/** `GET /v1/events`: the ledger, oldest first (spec §4.4). Each item has the webhook body's fields. */
export function eventsRouter(deps: { events: EventRepository }, docs: OperationDoc[]): Router {
  const router = Router();
  const route = createRoutes(router, docs);
  const present = (e: Parameters<typeof toEventPayload>[0]) => ({
    ...toEventPayload(e),
    object: 'event' as const,
  });

  route({
    method: 'get',
    path: '/v1/events',
    summary: 'List events, oldest first',
    tag: 'Events',
    query: EventListQuery,
    response: listOf(EventSchema),
    handler: async ({ query, scope }) => {
      const page = await deps.events.list(scope, {
        limit: query.limit,
        ...(query.after !== undefined && { after: new Date(query.after) }),
        ...(query.starting_after !== undefined && { startingAfter: query.starting_after }),
        ...(query.type !== undefined && { type: query.type }),
      });
      return listResponse('/v1/events', page.data.map(present), page.hasMore);
    },
  });

  route({
    method: 'get',
    path: '/v1/events/:id',
    summary: 'Retrieve an event',
    tag: 'Events',
    response: EventSchema,
    handler: async ({ params, scope }) => {
      const event = await deps.events.findById(scope, params.id!);
      if (!event) throw new NotFoundError(`No such event: '${params.id}'`, 'id');
      return present(event);
    },
  });

  return router;
}
