import { heartbeat } from '@temporalio/activity';
import type { CollectionPage, CollectionRun } from '../services/collection/collection-run';
import { callAdapter } from './adapter-failure';

/** The collection run's pages (services/collection/collection-run.ts; decision 0246). */
export function createCollectionActivities(deps: { collection: CollectionRun }) {
  return {
    /** One page of one lane: every step due by `asOf` on up to `limit` kröfur, then their bank, mail and hand-off. */
    async collectDuePage(input: CollectionPage): Promise<{ claims: number; steps: number; more: boolean }> {
      heartbeatSafe();
      return callAdapter(() => deps.collection.collectDuePage(input));
    },

    /** Bank alterations, letters and hand-offs a stopped worker left undone. */
    async finishCollectionSteps(input: {
      livemode: boolean;
      testClockId: string | null;
      limit: number;
    }): Promise<number> {
      heartbeatSafe();
      return callAdapter(() => deps.collection.finishUnfinished(input));
    },
  };
}

function heartbeatSafe(): void {
  try {
    heartbeat();
  } catch {
    // Outside an activity context (a direct call from a script).
  }
}
