import { heartbeat } from '@temporalio/activity';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { Knex } from '../db/knex';
import { createTestClockWaitRepository } from '../db/test-clock-waits';
import { clockTickUpdate } from '../workflows/contract';

export interface TestClockActivityDeps {
  knex: Knex;
  client: Client;
}

/** Side effects of advancing a test clock. */
export function createTestClockActivities(deps: Pick<TestClockActivityDeps, 'knex' | 'client'>) {
  const waits = createTestClockWaitRepository(deps.knex);
  return {
    /**
     * The next instant in (after, to] at which something bound to the clock is due: a renewal or a
     * workflow's wait. `to` when nothing is due before it.
     */
    async nextClockInstant(input: { testClockId: string; after: number; to: number }): Promise<number> {
      const at = (await waits.nextDue(input.testClockId))?.getTime() ?? null;
      if (at === null || at > input.to) return input.to;
      return Math.max(at, input.after);
    },

    async setClockTime(input: { testClockId: string; at: number; ready: boolean }): Promise<void> {
      await waits.setTime(input.testClockId, new Date(input.at), input.ready);
    },

    /**
     * Ticks every workflow waiting on the clock up to `now` and waits until each has done what was
     * due (the tick update returns then). Returns how many were ticked.
     */
    async tickClockWaits(input: { testClockId: string; now: number }): Promise<number> {
      const due = await waits.dueWorkflowIds(input.testClockId, new Date(input.now));
      let done = 0;
      let next = 0;
      const lane = async () => {
        while (next < due.length) {
          const workflowId = due[next++]!;
          try {
            await deps.client.workflow
              .getHandle(workflowId)
              .executeUpdate(clockTickUpdate, { args: [input.now] });
          } catch (err) {
            // A finished workflow has nothing left to wait for.
            const gone = err instanceof WorkflowNotFoundError || /completed|not found/i.test(String(err));
            if (!gone) throw err;
            await waits.clearWaitDueBy(workflowId, new Date(input.now));
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
