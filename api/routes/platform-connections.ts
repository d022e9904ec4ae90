import { Router } from 'express';
import { z } from 'zod';
import type { OperationDoc } from '../openapi';
import type { PlatformConnectionService } from '../../services/platforms/platform-connections';
import {
  DeletedPlatformConnectionSchema,
  PlatformConnectionSchema,
} from '../../services/platforms/platform-connection-object';
import { PLATFORMS } from '../../domain/platform-orders';
import { createRoutes } from '../route';
import { listOf, listResponse } from '../list';
import { pageOptions, pageQuery } from '../fields';

const CreateConnection = z
  .object({
    platform: z.enum(PLATFORMS),
    shop: z
      .string()
      .min(3)
      .max(255)
      .regex(
        /^(https?:\/\/)?[A-Za-z0-9.-]+(:\d{1,5})?(\/[A-Za-z0-9._~/-]*)?$/,
        'must be a shop domain or site URL',
      )
      .describe('Shopify: `shop.myshopify.com`; WooCommerce: the site URL (`https://shop.example.is`)'),
    secret: z
      .string()
      .min(8)
      .max(255)
      .regex(/^[\x21-\x7e]+$/, 'must be printable characters without spaces')
      .describe('WooCommerce: the webhook’s secret; Shopify: the app’s client secret. Never shown again'),
    claim_payment_methods: z
      .array(z.string().min(1).max(100))
      .max(20)
      .optional()
      .describe('Payment methods that mean a krafa (needs the order’s `kennitala`); default none'),
  })
  .strict();

/** Connections to WooCommerce and Shopify shops whose order webhooks Skil receives (decisions 0135, 0136). */
export function platformConnectionsRouter(
  deps: { connections: PlatformConnectionService },
  docs: OperationDoc[],
): Router {
  const router = Router();
  const route = createRoutes(router, docs);
  const { connections } = deps;
  const tag = 'Platform Connections';

  route({
    method: 'post',
    path: '/v1/platform-connections',
    summary: 'Connect a WooCommerce or Shopify shop: its order webhooks then create sessions or kröfur',
    tag,
    body: CreateConnection,
    response: PlatformConnectionSchema,
    handler: ({ body, scope }) => connections.create(scope, body),
  });
  route({
    method: 'get',
    path: '/v1/platform-connections',
    summary: 'List platform connections, newest first',
    tag,
    query: pageQuery,
    response: listOf(PlatformConnectionSchema),
    handler: async ({ query, scope }) => {
      const page = await connections.list(scope, pageOptions(query));
      return listResponse('/v1/platform-connections', page.data, page.hasMore);
    },
  });
  route({
    method: 'get',
    path: '/v1/platform-connections/:id',
    summary: 'Retrieve a platform connection',
    tag,
    response: PlatformConnectionSchema,
    handler: ({ params, scope }) => connections.retrieve(scope, params.id!),
  });
  route({
    method: 'delete',
    path: '/v1/platform-connections/:id',
    summary: 'Disconnect a shop: its webhooks are refused from now on',
    tag,
    response: DeletedPlatformConnectionSchema,
    handler: ({ params, scope }) => connections.remove(scope, params.id!),
  });
  return router;
}
