import { WorkflowExecutionAlreadyStartedError, WorkflowIdReusePolicy, type Client } from '@temporalio/client';
import type { Knex } from '../db/knex';
import { createTestClockWaitRepository } from '../db/test-clock-waits';
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
  const waits = createTestClockWaitRepository(deps.knex);
  return {
    async notify(refs: readonly SubscriptionRefForEngine[]): Promise<void> {
      const clockIds = [...new Set(refs.map((r) => r.testClockId).filter((c): c is string => c !== null))];
      const clocks = new Map<string, number>();
      if (clockIds.length > 0) {
        for (const [id, at] of await waits.frozenTimes(clockIds)) clocks.set(id, at);
        const clocked = refs.filter((r) => r.testClockId !== null && clocks.has(r.testClockId));
        await waits.registerWaitsAtClockTime(
          clocked.map((r) => ({
            workflowId: subscriptionWorkflowId(r.subscriptionId),
            testClockId: r.testClockId!,
          })),
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
