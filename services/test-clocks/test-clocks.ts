import type { Knex } from '../../db/knex';
import type { Scope } from '../../domain/scope';
import type { PageOptions } from '../../db/tenant';
import type { SubscriptionEngine } from '../../engine/subscription-engine';
import { createTestClockRepository } from '../../db/test-clocks';
import { cancelAllOnClock } from '../subscriptions/transitions';
import {
  ConflictError,
  InvalidRequestError,
  NotFoundError,
  ServiceUnavailableError,
} from '../../domain/errors';
import { presentDeletedTestClock, presentTestClock } from './test-clock-object';

const MAX_ADVANCE_MS = 2 * 366 * 86_400_000;

/** Test clocks (test mode only), modelled on Stripe's (decision 0044). */
export function createTestClockService(deps: { knex: Knex; engine: SubscriptionEngine | null }) {
  const clocks = createTestClockRepository(deps.knex);

  const testOnly = (scope: Scope) => {
    if (scope.livemode)
      throw new InvalidRequestError('Test clocks exist in test mode only; use a test key', {
        code: 'livemode_mismatch',
      });
  };
  const find = async (scope: Scope, id: string) => {
    testOnly(scope);
    const row = await clocks.findById(scope, id);
    if (!row) throw new NotFoundError(`No such test clock: '${id}'`, 'id');
    return row;
  };

  return {
    async create(scope: Scope, input: { frozen_time: Date; name?: string }) {
      testOnly(scope);
      return presentTestClock(
        await clocks.create(scope, { frozenTime: input.frozen_time, name: input.name ?? null }),
      );
    },

    async list(scope: Scope, opts: PageOptions) {
      testOnly(scope);
      const page = await clocks.list(scope, opts);
      return { data: page.data.map(presentTestClock), hasMore: page.hasMore };
    },

    retrieve: async (scope: Scope, id: string) => presentTestClock(await find(scope, id)),

    /** The subscriptions bound to the clock are canceled at its frozen time. */
    async delete(scope: Scope, id: string) {
      const row = await find(scope, id);
      if (row.status === 'advancing')
        throw new ConflictError('The test clock is advancing', 'test_clock_advancing');
      await deps.knex.transaction(async (trx) => {
        await clocks.delete(row.id, trx);
        await cancelAllOnClock(trx, row.id, row.frozen_time);
      });
      return presentDeletedTestClock(row.id);
    },

    /** Everything due until `to` runs, in time order, in the clock's workflow. */
    async advance(scope: Scope, id: string, to: Date) {
      const found = await find(scope, id);
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
      const row = await clocks.startAdvance(scope, found.id, to);
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
        await clocks.abandonAdvance(row.id);
        throw new ServiceUnavailableError(
          `The clock could not be advanced now; try again (${err instanceof Error ? err.message : String(err)})`,
          'workflow_engine_unavailable',
        );
      }
      return presentTestClock(row);
    },
  };
}

export type TestClockService = ReturnType<typeof createTestClockService>;
