import { Router } from 'express';
import { z } from 'zod';
import type { OperationDoc } from '../openapi';
import type { TestClockService } from '../../services/test-clocks/test-clocks';
import { DeletedTestClockSchema, TestClockSchema } from '../../services/test-clocks/test-clock-object';
import { createRoutes } from '../route';
import { listOf, listResponse } from '../list';
import { pageOptions, pageQuery, zLine, zUnixTime } from '../fields';

/** Test clocks (test mode only), modelled on Stripe's (decision 0044). */
export function testClocksRouter(deps: { testClocks: TestClockService }, docs: OperationDoc[]): Router {
  const router = Router();
  const route = createRoutes(router, docs);
  const clocks = deps.testClocks;
  const tag = 'Test Clocks';

  route({
    method: 'post',
    path: '/v1/test_helpers/test_clocks',
    summary: 'Create a test clock',
    tag,
    body: z.object({ frozen_time: zUnixTime(), name: zLine(300).optional() }).strict(),
    response: TestClockSchema,
    handler: ({ body, scope }) => clocks.create(scope, body),
  });

  route({
    method: 'get',
    path: '/v1/test_helpers/test_clocks',
    summary: 'List test clocks, newest first',
    tag,
    query: pageQuery,
    response: listOf(TestClockSchema),
    handler: async ({ query, scope }) => {
      const page = await clocks.list(scope, pageOptions(query));
      return listResponse('/v1/test_helpers/test_clocks', page.data, page.hasMore);
    },
  });

  route({
    method: 'get',
    path: '/v1/test_helpers/test_clocks/:id',
    summary: 'Retrieve a test clock',
    tag,
    response: TestClockSchema,
    handler: ({ params, scope }) => clocks.retrieve(scope, params.id!),
  });

  route({
    method: 'delete',
    path: '/v1/test_helpers/test_clocks/:id',
    summary: 'Delete a test clock; the subscriptions bound to it are canceled',
    tag,
    response: DeletedTestClockSchema,
    handler: ({ params, scope }) => clocks.delete(scope, params.id!),
  });

  route({
    method: 'post',
    path: '/v1/test_helpers/test_clocks/:id/advance',
    summary: 'Advance a test clock: everything due until frozen_time runs, in time order',
    tag,
    body: z.object({ frozen_time: zUnixTime() }).strict(),
    response: TestClockSchema,
    handler: ({ params, body, scope }) => clocks.advance(scope, params.id!, body.frozen_time),
  });

  return router;
}
