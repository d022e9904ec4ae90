import type { Db } from './knex';
import type { Scope } from '../domain/scope';
import { newId, ID_PREFIX } from '../domain/ids';

export interface TestClockRow {
  id: string;
  merchant_id: string;
  livemode: boolean;
  name: string | null;
  frozen_time: Date;
  created_at: Date;
  updated_at: Date;
}

/**
 * Test clocks, test mode only. This is the minimum customers bind to; the subscriptions work adds
 * advancing and the API around it.
 */
export function createTestClockRepository(db: Db) {
  return {
    async create(scope: Scope, input: { frozenTime: Date; name?: string | null }, trx: Db = db) {
      if (scope.livemode) throw new Error('test clocks exist in test mode only');
      const [row] = await trx<TestClockRow>('test_clocks')
        .insert({
          id: newId(ID_PREFIX.testClock),
          merchant_id: scope.merchantId,
          livemode: false,
          name: input.name ?? null,
          frozen_time: input.frozenTime,
        })
        .returning('*');
      return row!;
    },

    async findById(scope: Scope, id: string, trx: Db = db): Promise<TestClockRow | undefined> {
      return trx<TestClockRow>('test_clocks')
        .where({ id, merchant_id: scope.merchantId, livemode: scope.livemode })
        .whereNull('deleted_at')
        .first();
    },
  };
}

export type TestClockRepository = ReturnType<typeof createTestClockRepository>;
