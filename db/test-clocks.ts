import type { Db } from './knex';
import type { Scope } from '../domain/scope';
import { newId, ID_PREFIX } from '../domain/ids';
import { pageByCreated } from './pagination';
import type { PageOptions } from './tenant';

export interface TestClockRow {
  id: string;
  merchant_id: string;
  livemode: boolean;
  name: string | null;
  frozen_time: Date;
  /** `advancing` while a clock workflow runs what falls inside the advance. */
  status: 'ready' | 'advancing';
  advancing_to: Date | null;
  created_at: Date;
  updated_at: Date;
  deleted_at: Date | null;
}

/** Test clocks, test mode only (decision 0044); customers and their subscriptions bind to one. */
export function createTestClockRepository(db: Db) {
  const scoped = (scope: Scope, trx: Db) =>
    trx<TestClockRow>('test_clocks')
      .where({ merchant_id: scope.merchantId, livemode: scope.livemode })
      .whereNull('deleted_at');

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
      return scoped(scope, trx).where({ id }).first();
    },

    /** The simulated now of a clock, by id alone: the caller's row already names it. */
    async frozenTime(id: string, trx: Db = db): Promise<Date | undefined> {
      const row = await trx<TestClockRow>('test_clocks').where({ id }).first('frozen_time');
      return row?.frozen_time;
    },

    list: (scope: Scope, opts: PageOptions, trx: Db = db) =>
      pageByCreated<TestClockRow>(scoped(scope, trx), 'test_clocks', scope, opts),

    /** Marks a ready clock advancing towards `to`; undefined when it is already advancing. */
    async startAdvance(scope: Scope, id: string, to: Date, trx: Db = db) {
      const [row] = await scoped(scope, trx)
        .where({ id, status: 'ready' })
        .update({ status: 'advancing', advancing_to: to })
        .returning('*');
      return row;
    },

    /** Puts an advancing clock back to ready when its advance could not be started. */
    async abandonAdvance(id: string, trx: Db = db): Promise<void> {
      await trx('test_clocks')
        .where({ id, status: 'advancing' })
        .update({ status: 'ready', advancing_to: null });
    },

    /** Soft delete; the clock's pending wake-ups go with it. */
    async delete(id: string, trx: Db = db): Promise<void> {
      await trx('test_clocks').where({ id }).update({ deleted_at: trx.fn.now() });
      await trx('test_clock_waits').where({ test_clock_id: id }).delete();
    },
  };
}

export type TestClockRepository = ReturnType<typeof createTestClockRepository>;
