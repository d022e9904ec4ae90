import { Router } from 'express';
import { z } from 'zod';
import type { OperationDoc } from '../openapi';
import type { EventService } from '../../services/events/events-service';
import { createRoutes } from '../route';
import { listOf, listResponse } from '../list';
import { zInt } from '../validation';
import { EventSchema } from '../../services/events/event-object';

export const EventListQuery = z
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
export function eventsRouter(deps: { events: EventService }, docs: OperationDoc[]): Router {
  const router = Router();
  const route = createRoutes(router, docs);

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
      return listResponse('/v1/events', page.data, page.hasMore);
    },
  });

  route({
    method: 'get',
    path: '/v1/events/:id',
    summary: 'Retrieve an event',
    tag: 'Events',
    response: EventSchema,
    handler: ({ params, scope }) => deps.events.retrieve(scope, params.id!),
  });

  return router;
}
