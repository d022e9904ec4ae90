import { sqlArgs } from '../db/event-batch';
import { heartbeat } from '@temporalio/activity';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { Knex } from '../db/knex';
import { clockTickUpdate } from '../workflows/contract';

export interface TestClockActivityDeps {
  knex: Knex;
  client: Client;
}

/** Side effects of advancing a test clock. */
export function createTestClockActivities(deps: Pick<TestClockActivityDeps, 'knex' | 'client'>) {
  return {
    /**
     * The next instant in (after, to] at which something bound to the clock is due: a renewal or a
     * workflow's wait. `to` when nothing is due before it.
     */
    async nextClockInstant(input: { testClockId: string; after: number; to: number }): Promise<number> {
      const result = await deps.knex.raw<{ rows: { at: Date | null }[] }>(
        `select least(
           (select min(current_period_end) from subscriptions
             where test_clock_id = ? and status = 'active' and not cancel_at_period_end),
           (select min(due_at) from test_clock_waits where test_clock_id = ?)) as at`,
        sqlArgs(...[input.testClockId, input.testClockId]),
      );
      const at = result.rows[0]?.at?.getTime() ?? null;
      if (at === null || at > input.to) return input.to;
      return Math.max(at, input.after);
    },

    async setClockTime(input: { testClockId: string; at: number; ready: boolean }): Promise<void> {
      await deps
        .knex('test_clocks')
        .where({ id: input.testClockId })
        .update({
          frozen_time: new Date(input.at),
          updated_at: deps.knex.fn.now(),
          ...(input.ready && { status: 'ready', advancing_to: null }),
        });
    },

    /**
     * Ticks every workflow waiting on the clock up to `now` and waits until each has done what was
     * due (the tick update returns then). Returns how many were ticked.
     */
    async tickClockWaits(input: { testClockId: string; now: number }): Promise<number> {
      const due = await deps
        .knex('test_clock_waits')
        .where({ test_clock_id: input.testClockId })
        .where('due_at', '<=', new Date(input.now))
        .select<{ workflow_id: string }[]>('workflow_id');
      let done = 0;
      let next = 0;
      const lane = async () => {
        while (next < due.length) {
          const workflowId = due[next++]!.workflow_id;
          try {
            await deps.client.workflow
              .getHandle(workflowId)
              .executeUpdate(clockTickUpdate, { args: [input.now] });
          } catch (err) {
            // A finished workflow has nothing left to wait for.
            const gone = err instanceof WorkflowNotFoundError || /completed|not found/i.test(String(err));
            if (!gone) throw err;
            await deps
              .knex('test_clock_waits')
              .where({ workflow_id: workflowId })
              .where('due_at', '<=', new Date(input.now))
              .delete();
          }
          done += 1;
          heartbeat(done);
        }
      };
      await Promise.all(Array.from({ length: Math.min(16, due.length) }, lane));
      return due.length;
    },
  };
}

export type TestClockActivities = ReturnType<typeof createTestClockActivities>;
