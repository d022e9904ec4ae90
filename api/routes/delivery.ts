import { Router } from 'express';
import { z } from 'zod';
import type { OperationDoc } from '../openapi';
import type { CarrierService } from '../../services/delivery/carriers';
import type { DeliveryService } from '../../services/delivery/deliveries';
import {
  CarrierSchema,
  DeliverySchema,
  PickupPointResultSchema,
} from '../../services/delivery/delivery-object';
import { CARRIERS, DELIVERY_STATUSES } from '../../domain/delivery';
import { createRoutes } from '../route';
import { listOf, listResponse } from '../list';
import { zBool, zInt } from '../validation';
import { pageOptions, pageQuery, zId, zLine } from '../fields';

const zCoordinate = (min: number, max: number) =>
  z
    .union([
      z.number(),
      z
        .string()
        .regex(/^-?\d{1,3}(\.\d{1,10})?$/, 'must be a number')
        .transform(Number),
    ])
    .pipe(z.number().min(min).max(max));

const PickupPointQuery = z
  .object({
    carrier: z.enum(CARRIERS).optional().describe('Only this carrier; default every active carrier'),
    postcode: z
      .string()
      .regex(/^\d{3}$/, 'must be a three-digit Icelandic postcode')
      .optional(),
    q: zLine(100).optional().describe('Part of the name or address, without regard to case or accents'),
    latitude: zCoordinate(-90, 90).optional().describe('With longitude: nearest first, with distance_m'),
    longitude: zCoordinate(-180, 180).optional(),
    limit: zInt().pipe(z.number().min(1).max(100)).default(25),
  })
  .strict()
  .superRefine((q, ctx) => {
    if ((q.latitude === undefined) !== (q.longitude === undefined))
      ctx.addIssue({
        code: 'custom',
        path: [q.latitude === undefined ? 'latitude' : 'longitude'],
        message: 'send latitude and longitude together',
      });
  });

const DeliveryListQuery = pageQuery
  .extend({
    checkout_session: zId.optional().describe('Only the delivery of this checkout session'),
    status: z.enum(DELIVERY_STATUSES).optional(),
  })
  .strict();

/** Pickup-point delivery: carriers, pickup points, deliveries (decisions 0132–0137). */
export function deliveryRouter(
  deps: { carriers: CarrierService; deliveries: DeliveryService },
  docs: OperationDoc[],
): Router {
  const router = Router();
  const route = createRoutes(router, docs);
  const { carriers, deliveries } = deps;
  const tag = 'Delivery';

  route({
    method: 'get',
    path: '/v1/delivery/carriers',
    summary: 'List the pickup-point carriers and whether each is active in this environment',
    tag,
    response: listOf(CarrierSchema),
    handler: async ({ scope }) => listResponse('/v1/delivery/carriers', await carriers.list(scope), false),
  });

  route({
    method: 'post',
    path: '/v1/delivery/carriers/:id',
    summary: 'Switch a carrier on or off for this environment (`delivery.<carrier>` in enabled_capabilities)',
    tag,
    body: z.object({ active: zBool() }).strict(),
    response: CarrierSchema,
    handler: ({ params, body, scope }) => carriers.setActive(scope, params.id!, body.active),
  });

  route({
    method: 'get',
    path: '/v1/delivery/pickup-points',
    summary: 'Search pickup points by postcode, by name, or nearest to a point',
    tag,
    query: PickupPointQuery,
    response: listOf(PickupPointResultSchema),
    errors: [503],
    handler: async ({ query, scope }) =>
      listResponse(
        '/v1/delivery/pickup-points',
        await carriers.search(scope, {
          carrier: query.carrier,
          postcode: query.postcode,
          q: query.q,
          near:
            query.latitude !== undefined && query.longitude !== undefined
              ? { latitude: query.latitude, longitude: query.longitude }
              : undefined,
          limit: query.limit,
        }),
        false,
      ),
  });

  route({
    method: 'get',
    path: '/v1/deliveries',
    summary: 'List deliveries, newest first',
    tag,
    query: DeliveryListQuery,
    response: listOf(DeliverySchema),
    handler: async ({ query, scope }) => {
      const page = await deliveries.list(scope, {
        ...pageOptions(query),
        checkoutSessionId: query.checkout_session,
        status: query.status,
      });
      return listResponse('/v1/deliveries', page.data, page.hasMore);
    },
  });

  route({
    method: 'get',
    path: '/v1/deliveries/:id',
    summary: 'Retrieve a delivery',
    tag,
    response: DeliverySchema,
    handler: ({ params, scope }) => deliveries.retrieve(scope, params.id!),
  });

  route({
    method: 'post',
    path: '/v1/deliveries/:id/cancel',
    summary: 'Cancel a delivery the carrier does not have yet (pending or booked)',
    tag,
    body: z.object({}).strict(),
    response: DeliverySchema,
    errors: [409, 503],
    handler: ({ params, scope }) => deliveries.cancel(scope, params.id!),
  });

  route({
    method: 'post',
    path: '/v1/test_helpers/deliveries/:id/advance',
    summary:
      'Test mode: the simulated carrier moves the parcel one step on (or returns it); Skil reads it at once',
    tag,
    body: z
      .object({
        to: z.enum(['next', 'returned']).default('next').describe('`returned`: back to the merchant'),
      })
      .strict(),
    response: DeliverySchema,
    errors: [409, 503],
    handler: ({ params, body, scope }) => deliveries.advanceForTest(scope, params.id!, body.to),
  });

  return router;
}
