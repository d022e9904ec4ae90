import { Worker } from '@temporalio/worker';
import { globalHandlers } from '@temporalio/worker/lib/workflow/vm-shared';

/**
 * Replays a workflow history with the run's workflow bundle (the determinism guard, STYLE.md §7),
 * failing on nondeterminism.
 *
 * A replay worker runs its workflows in this thread and installs the SDK's promise hook here, for
 * workflow stack traces; the SDK never removes it (its worker threads end instead). Left in place,
 * every promise the jest worker process makes afterwards, in every later file, calls it, and it
 * compiles a function each time. So it is removed when the replay ends (decision 0266).
 */
export async function replayHistory(history: unknown, workflowId: string): Promise<void> {
  try {
    await Worker.runReplayHistory(
      { workflowBundle: { codePath: process.env.SKIL_TEST_WORKFLOW_BUNDLE! } },
      history,
      workflowId,
    );
  } finally {
    globalHandlers.uninstall();
  }
}
