import type { Db } from './knex';
import { sqlArgs } from './event-batch';

/**
 * What advancing a test clock reads and writes: the clock's time, and the waits of clock-bound
 * workflows (`test_clock_waits`, one row per workflow id) that the advance ticks in order. Keyed by
 * clock and workflow ids, which the clock's merchant already owns.
 */
export function createTestClockWaitRepository(db: Db) {
  return {
    /** The clock's time now, by id: each clock of `ids` that exists. */
    async frozenTimes(ids: readonly string[], trx: Db = db): Promise<Map<string, number>> {
      const rows = await trx('test_clocks')
        .whereIn('id', ids)
        .select<{ id: string; frozen_time: Date }[]>('id', 'frozen_time');
      return new Map(rows.map((r) => [r.id, r.frozen_time.getTime()]));
    },

    /**
     * Registers workflows (subscription lifecycles) as due at their clock's time (an earlier wait is
     * kept), so an advance in progress ticks them in order.
     */
    async registerWaitsAtClockTime(
      refs: readonly { workflowId: string; testClockId: string }[],
      trx: Db = db,
    ): Promise<void> {
      await trx.raw(
        `insert into test_clock_waits (workflow_id, test_clock_id, due_at)
           select t.id, t.clock, c.frozen_time
             from unnest(?::text[], ?::text[]) as t(id, clock) join test_clocks c on c.id = t.clock
           on conflict (workflow_id) do update set due_at = least(test_clock_waits.due_at, excluded.due_at)`,
        sqlArgs(...[refs.map((r) => r.workflowId), refs.map((r) => r.testClockId)]),
      );
    },

    /** Registers workflows (subscription lifecycles) as due at `at` (an earlier wait is kept). */
    async registerWaitsAt(
      at: Date,
      refs: readonly { workflowId: string; testClockId: string | null }[],
      trx: Db = db,
    ): Promise<void> {
      await trx.raw(
        `insert into test_clock_waits (workflow_id, test_clock_id, due_at)
           select t.id, t.clock, ?::timestamptz from unnest(?::text[], ?::text[]) as t(id, clock)
           on conflict (workflow_id) do update set due_at = least(test_clock_waits.due_at, excluded.due_at)`,
        sqlArgs(...[at, refs.map((l) => l.workflowId), refs.map((l) => l.testClockId)]),
      );
    },

    /**
     * Records when a workflow wants to be woken and returns the clock's time now (null: no such
     * clock), in one statement.
     */
    async registerWait(
      input: { workflowId: string; testClockId: string; dueAt: Date },
      trx: Db = db,
    ): Promise<Date | null> {
      const result = await trx.raw<{ rows: { frozen_time: Date }[] }>(
        `with wait as (
           insert into test_clock_waits (workflow_id, test_clock_id, due_at) values (?, ?, ?)
           on conflict (workflow_id) do update set due_at = excluded.due_at, test_clock_id = excluded.test_clock_id)
         select frozen_time from test_clocks where id = ?`,
        sqlArgs(...[input.workflowId, input.testClockId, input.dueAt, input.testClockId]),
      );
      return result.rows[0]?.frozen_time ?? null;
    },

    async clearWait(workflowId: string, trx: Db = db): Promise<void> {
      await trx('test_clock_waits').where({ workflow_id: workflowId }).delete();
    },

    /** A workflow's wait, if still due by `now` (a later one it registered since is kept). */
    async clearWaitDueBy(workflowId: string, now: Date, trx: Db = db): Promise<void> {
      await trx('test_clock_waits').where({ workflow_id: workflowId }).where('due_at', '<=', now).delete();
    },

    /** The workflows waiting on the clock that are due by `now`. */
    async dueWorkflowIds(testClockId: string, now: Date, trx: Db = db): Promise<string[]> {
      const rows = await trx('test_clock_waits')
        .where({ test_clock_id: testClockId })
        .where('due_at', '<=', now)
        .select<{ workflow_id: string }[]>('workflow_id');
      return rows.map((r) => r.workflow_id);
    },

    /**
     * The first instant something bound to the clock is due: an active subscription's period end
     * (one not cancelling at period end) or a workflow's wait. Null when nothing is.
     */
    async nextDue(testClockId: string, trx: Db = db): Promise<Date | null> {
      const result = await trx.raw<{ rows: { at: Date | null }[] }>(
        `select least(
           (select min(current_period_end) from subscriptions
             where test_clock_id = ? and status = 'active' and not cancel_at_period_end),
           (select min(due_at) from test_clock_waits where test_clock_id = ?)) as at`,
        sqlArgs(...[testClockId, testClockId]),
      );
      return result.rows[0]?.at ?? null;
    },

    /** Sets the clock's time; `ready` ends its advance. */
    async setTime(testClockId: string, at: Date, ready: boolean, trx: Db = db): Promise<void> {
      await trx('test_clocks')
        .where({ id: testClockId })
        .update({
          frozen_time: at,
          updated_at: trx.fn.now(),
          ...(ready && { status: 'ready', advancing_to: null }),
        });
    },
  };
}

export type TestClockWaitRepository = ReturnType<typeof createTestClockWaitRepository>;
