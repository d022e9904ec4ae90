import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { Knex } from '../../db/knex';
import { createTestClockWaitRepository } from '../../db/test-clock-waits';
import { clockTickUpdate } from '../../workflows/contract';

/**
 * The worker's side of a test clock (decision 0044): the clock's time while it advances, and the
 * waits of the clock-bound workflows it ticks in time order.
 */
export function createClockAdvance(deps: { knex: Knex; client: Client }) {
  const waits = createTestClockWaitRepository(deps.knex);
  return {
    /**
     * The next instant in (after, to] at which something bound to the clock is due: a renewal or a
     * workflow's wait. `to` when nothing is due before it.
     */
    async nextInstant(input: { testClockId: string; after: number; to: number }): Promise<number> {
      const at = (await waits.nextDue(input.testClockId))?.getTime() ?? null;
      if (at === null || at > input.to) return input.to;
      return Math.max(at, input.after);
    },

    async setTime(input: { testClockId: string; at: number; ready: boolean }): Promise<void> {
      await waits.setTime(input.testClockId, new Date(input.at), input.ready);
    },

    /**
     * Ticks every workflow waiting on the clock up to `now` and waits until each has done what was
     * due (the tick update returns then); `onTicked` hears the count after each. Returns how many
     * were ticked.
     */
    async tickDue(
      input: { testClockId: string; now: number },
      onTicked: (done: number) => void,
    ): Promise<number> {
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
          onTicked(done);
        }
      };
      await Promise.all(Array.from({ length: Math.min(16, due.length) }, lane));
      return due.length;
    },

    /**
     * Records when a clock-bound workflow wants to be woken (the clock reads it while advancing), and
     * returns the clock's time now: a wait registered after the clock already passed it would get no
     * tick, so the workflow goes on at once instead.
     */
    async registerWait(input: {
      workflowId: string;
      testClockId: string;
      dueAt: number;
    }): Promise<number | null> {
      const now = await waits.registerWait({ ...input, dueAt: new Date(input.dueAt) });
      return now?.getTime() ?? null;
    },

    async clearWait(input: { workflowId: string }): Promise<void> {
      await waits.clearWait(input.workflowId);
    },
  };
}

export type ClockAdvance = ReturnType<typeof createClockAdvance>;
