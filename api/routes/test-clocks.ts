import { Router } from 'express';
import { z } from 'zod';
import type { Knex } from '../../db/knex';
import type { Scope } from '../../domain/scope';
import type { OperationDoc } from '../openapi';
import type { SubscriptionEngine } from '../../engine/subscription-engine';
import { newId, ID_PREFIX } from '../../domain/ids';
import {
  ConflictError,
  InvalidRequestError,
  NotFoundError,
  ServiceUnavailableError,
} from '../../domain/errors';
import { createRoutes } from '../route';
import { listOf, listResponse } from '../list';
import { unix } from '../../domain/unix-time';
import { pageOptions, pageQuery, zLine, zUnixTime } from '../fields';
import { pageByCreated } from '../../db/pagination';

interface ClockRow {
  id: string;
  merchant_id: string;
  livemode: boolean;
  name: string | null;
  frozen_time: Date;
  status: 'ready' | 'advancing';
  advancing_to: Date | null;
  created_at: Date;
  deleted_at: Date | null;
}

const TestClockSchema = z.object({
  id: z.string(),
  object: z.literal('test_helpers.test_clock'),
  livemode: z.literal(false),
  name: z.string().nullable(),
  frozen_time: z.number(),
  status: z.enum(['ready', 'advancing']),
  status_details: z.object({ advancing: z.object({ target_frozen_time: z.number() }).nullable() }),
  created_at: z.number(),
});

const present = (row: ClockRow) => ({
  id: row.id,
  object: 'test_helpers.test_clock' as const,
  livemode: false as const,
  name: row.name,
  frozen_time: unix(row.frozen_time),
  status: row.status,
  status_details: { advancing: row.advancing_to ? { target_frozen_time: unix(row.advancing_to) } : null },
  created_at: unix(row.created_at),
});

const MAX_ADVANCE_MS = 2 * 366 * 86_400_000;

/** Test clocks (test mode only), modelled on Stripe's (decision 0044). */
export function testClocksRouter(
  deps: { knex: Knex; engine: SubscriptionEngine | null },
  docs: OperationDoc[],
): Router {
  const router = Router();
  const route = createRoutes(router, docs);
  const tag = 'Test Clocks';
  const scoped = (scope: Scope) =>
    deps
      .knex<ClockRow>('test_clocks')
      .where({ merchant_id: scope.merchantId, livemode: false })
      .whereNull('deleted_at');
  const testOnly = (scope: Scope) => {
    if (scope.livemode)
      throw new InvalidRequestError('Test clocks exist in test mode only; use a test key', {
        code: 'livemode_mismatch',
      });
  };
  const find = async (scope: Scope, id: string) => {
    testOnly(scope);
    const row = await scoped(scope).where({ id }).first();
    if (!row) throw new NotFoundError(`No such test clock: '${id}'`, 'id');
    return row;
  };

  route({
    method: 'post',
    path: '/v1/test_helpers/test_clocks',
    summary: 'Create a test clock',
    tag,
    body: z.object({ frozen_time: zUnixTime(), name: zLine(300).optional() }).strict(),
    response: TestClockSchema,
    handler: async ({ body, scope }) => {
      testOnly(scope);
      const [row] = await deps
        .knex<ClockRow>('test_clocks')
        .insert({
          id: newId(ID_PREFIX.testClock),
          merchant_id: scope.merchantId,
          livemode: false,
          name: body.name ?? null,
          frozen_time: body.frozen_time,
        })
        .returning('*');
      return present(row!);
    },
  });

  route({
    method: 'get',
    path: '/v1/test_helpers/test_clocks',
    summary: 'List test clocks, newest first',
    tag,
    query: pageQuery,
    response: listOf(TestClockSchema),
    handler: async ({ query, scope }) => {
      testOnly(scope);
      const page = await pageByCreated<ClockRow>(scoped(scope), 'test_clocks', scope, pageOptions(query));
      return listResponse('/v1/test_helpers/test_clocks', page.data.map(present), page.hasMore);
    },
  });

  route({
    method: 'get',
    path: '/v1/test_helpers/test_clocks/:id',
    summary: 'Retrieve a test clock',
    tag,
    response: TestClockSchema,
    handler: async ({ params, scope }) => present(await find(scope, params.id!)),
  });

  route({
    method: 'delete',
    path: '/v1/test_helpers/test_clocks/:id',
    summary: 'Delete a test clock; the subscriptions bound to it are canceled',
    tag,
    response: z.object({
      id: z.string(),
      object: z.literal('test_helpers.test_clock'),
      deleted: z.literal(true),
    }),
    handler: async ({ params, scope }) => {
      const row = await find(scope, params.id!);
      if (row.status === 'advancing')
        throw new ConflictError('The test clock is advancing', 'test_clock_advancing');
      await deps.knex.transaction(async (trx) => {
        await trx('test_clocks').where({ id: row.id }).update({ deleted_at: trx.fn.now() });
        await trx('subscriptions')
          .where({ test_clock_id: row.id })
          .whereNotIn('status', ['canceled', 'incomplete_expired'])
          .update({ status: 'canceled', canceled_at: row.frozen_time, ended_at: row.frozen_time });
        await trx('test_clock_waits').where({ test_clock_id: row.id }).delete();
      });
      return { id: row.id, object: 'test_helpers.test_clock' as const, deleted: true as const };
    },
  });

  route({
    method: 'post',
    path: '/v1/test_helpers/test_clocks/:id/advance',
    summary: 'Advance a test clock: everything due until frozen_time runs, in time order',
    tag,
    body: z.object({ frozen_time: zUnixTime() }).strict(),
    response: TestClockSchema,
    handler: async ({ params, body, scope }) => {
      const found = await find(scope, params.id!);
      const to = body.frozen_time;
      if (to.getTime() <= found.frozen_time.getTime())
        throw new InvalidRequestError('frozen_time must be after the current frozen time', {
          code: 'parameter_invalid',
          param: 'frozen_time',
        });
      if (to.getTime() - found.frozen_time.getTime() > MAX_ADVANCE_MS)
        throw new InvalidRequestError('A clock advances at most two years at a time', {
          code: 'parameter_invalid',
          param: 'frozen_time',
        });
      if (!deps.engine) throw new Error('advancing needs the Temporal connection');
      const [row] = await deps
        .knex<ClockRow>('test_clocks')
        .where({ id: found.id, status: 'ready' })
        .update({ status: 'advancing', advancing_to: to })
        .returning('*');
      if (!row) throw new ConflictError('The test clock is already advancing', 'test_clock_advancing');
      try {
        await deps.engine.advanceClock({
          merchantId: scope.merchantId,
          testClockId: row.id,
          from: found.frozen_time.getTime(),
          to: to.getTime(),
        });
      } catch (err) {
        // Nothing was started: put the clock back, so it is not left 'advancing' for ever.
        await deps
          .knex('test_clocks')
          .where({ id: row.id, status: 'advancing' })
          .update({ status: 'ready', advancing_to: null });
        throw new ServiceUnavailableError(
          `The clock could not be advanced now; try again (${err instanceof Error ? err.message : String(err)})`,
          'workflow_engine_unavailable',
        );
      }
      return present(row);
    },
  });

  return router;
}
