import { sqlArgs } from '../db/event-batch';
import { WorkflowExecutionAlreadyStartedError, WorkflowIdReusePolicy, type Client } from '@temporalio/client';
import type { Knex } from '../db/knex';
import {
  WorkflowType,
  subscriptionChangedSignal,
  subscriptionWorkflowId,
  testClockWorkflowId,
  type Workflows,
} from '../workflows/contract';

export interface SubscriptionRefForEngine {
  merchantId: string;
  livemode: boolean;
  subscriptionId: string;
  testClockId: string | null;
}

/**
 * Starts and signals subscription lifecycles and test clock advances. Signal-with-start under the
 * subscription's fixed id both starts a finished lifecycle again and wakes a sleeping one; a
 * clock-bound lifecycle is also registered as due at the clock's time, so an advance in progress
 * ticks it in order.
 */
export function createSubscriptionEngine(deps: { client: Client; knex: Knex; taskQueue: string }) {
  return {
    async notify(refs: readonly SubscriptionRefForEngine[]): Promise<void> {
      const clockIds = [...new Set(refs.map((r) => r.testClockId).filter((c): c is string => c !== null))];
      const clocks = new Map<string, number>();
      if (clockIds.length > 0) {
        const rows = await deps
          .knex('test_clocks')
          .whereIn('id', clockIds)
          .select<{ id: string; frozen_time: Date }[]>('id', 'frozen_time');
        for (const r of rows) clocks.set(r.id, r.frozen_time.getTime());
        const clocked = refs.filter((r) => r.testClockId !== null && clocks.has(r.testClockId));
        await deps.knex.raw(
          `insert into test_clock_waits (workflow_id, test_clock_id, due_at)
           select t.id, t.clock, c.frozen_time
             from unnest(?::text[], ?::text[]) as t(id, clock) join test_clocks c on c.id = t.clock
           on conflict (workflow_id) do update set due_at = least(test_clock_waits.due_at, excluded.due_at)`,
          sqlArgs(
            ...[
              clocked.map((r) => subscriptionWorkflowId(r.subscriptionId)),
              clocked.map((r) => r.testClockId),
            ],
          ),
        );
      }
      let next = 0;
      const lane = async () => {
        while (next < refs.length) {
          const r = refs[next++]!;
          const now = r.testClockId === null ? undefined : clocks.get(r.testClockId);
          await deps.client.workflow.signalWithStart<Workflows['subscriptionLifecycle'], []>(
            WorkflowType.subscriptionLifecycle,
            {
              workflowId: subscriptionWorkflowId(r.subscriptionId),
              taskQueue: deps.taskQueue,
              // A finished lifecycle starts again when the subscription needs one.
              workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
              args: [
                {
                  merchantId: r.merchantId,
                  livemode: r.livemode,
                  subscriptionId: r.subscriptionId,
                  clock: r.testClockId !== null && now !== undefined ? { id: r.testClockId, now } : null,
                },
              ],
              signal: subscriptionChangedSignal,
              signalArgs: [],
            },
          );
        }
      };
      await Promise.all(Array.from({ length: Math.min(8, refs.length) }, lane));
    },

    /** Starts the advance of a clock; one at a time per clock (the API checks the status first). */
    async advanceClock(input: {
      merchantId: string;
      testClockId: string;
      from: number;
      to: number;
    }): Promise<void> {
      const workflowId = testClockWorkflowId(input.testClockId);
      const start = () =>
        deps.client.workflow.start<Workflows['testClockAdvance']>(WorkflowType.testClockAdvance, {
          workflowId,
          taskQueue: deps.taskQueue,
          workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
          args: [input],
        });
      try {
        await start();
      } catch (err) {
        if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
        // The previous advance marks the clock ready as its last step, so a new advance can arrive
        // while that run is still closing: wait for it to close, then start this one.
        await deps.client.workflow
          .getHandle(workflowId)
          .result()
          .catch(() => undefined);
        await start();
      }
    },
  };
}

export type SubscriptionEngine = ReturnType<typeof createSubscriptionEngine>;
