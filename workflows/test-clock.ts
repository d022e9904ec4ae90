import {
  executeChild,
  patched,
  proxyActivities,
  ParentClosePolicy,
  WorkflowIdReusePolicy,
} from '@temporalio/workflow';
import type { createTestClockActivities } from '../activities/test-clocks';
import { billingRun } from './billing-run';
import { collectionRun } from './collection-run';
import { testClockBillingRunWorkflowId, testClockCollectionRunWorkflowId } from './contract';

type TestClockActivities = ReturnType<typeof createTestClockActivities>;

const { nextClockInstant, setClockTime } = proxyActivities<TestClockActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '10 seconds' },
});

// Ticking waits on every workflow due at this instant to finish its step (charges included).
const { tickClockWaits } = proxyActivities<TestClockActivities>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '1 minute',
  retry: { initialInterval: '1 second', maximumInterval: '10 seconds' },
});

export interface TestClockInput {
  merchantId: string;
  testClockId: string;
  /** Epoch ms: the clock's frozen time before the advance, and the time to advance to. */
  from: number;
  to: number;
}

const MAX_INSTANTS = 10_000;

/**
 * Advances a test clock (`clock/{clock_id}`) in time order: steps to the next instant at which
 * anything bound to the clock is due, runs the billing run for that instant, ticks the workflows
 * waiting on the clock until nothing more is due then, and moves on; finally rests at `to`.
 */
export async function testClockAdvance(input: TestClockInput): Promise<{ instants: number }> {
  let now = input.from;
  let instants = 0;
  for (; instants < MAX_INSTANTS; instants++) {
    const at = await nextClockInstant({ testClockId: input.testClockId, after: now, to: input.to });
    now = at;
    await setClockTime({ testClockId: input.testClockId, at, ready: false });
    for (let pass = 0; pass < 50; pass++) {
      const run = await executeChild(billingRun, {
        workflowId: testClockBillingRunWorkflowId(input.testClockId, at, pass),
        args: [{ livemode: false, asOf: at, testClockId: input.testClockId }],
        parentClosePolicy: ParentClosePolicy.TERMINATE,
        workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
      });
      const ticked = await tickClockWaits({ testClockId: input.testClockId, now: at });
      if (run.processed === 0 && ticked === 0) break;
    }
    // The clock's overdue kröfur take the steps due by this instant (decision 0246); advances
    // started before collection existed replay without it.
    if (patched('clock-collection-run'))
      await executeChild(collectionRun, {
        workflowId: testClockCollectionRunWorkflowId(input.testClockId, at),
        args: [{ livemode: false, asOf: at, testClockId: input.testClockId }],
        parentClosePolicy: ParentClosePolicy.TERMINATE,
        workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
      });
    if (at >= input.to) break;
  }
  await setClockTime({ testClockId: input.testClockId, at: input.to, ready: true });
  return { instants };
}
