import { heartbeat } from '@temporalio/activity';
import type { CollectionPage, CollectionRun } from '../services/collection/collection-run';
import { callAdapter } from './adapter-failure';

/** The collection run's pages (services/collection/collection-run.ts; decision 0246). */
export function createCollectionActivities(deps: { collection: CollectionRun }) {
  return {
    /** One page of one lane: every step due by `asOf` on up to `limit` kröfur, then their bank, mail and hand-off. */
    async collectDuePage(input: CollectionPage): Promise<{ claims: number; steps: number; more: boolean }> {
      return whileBeating(() => callAdapter(() => deps.collection.collectDuePage(input)));
    },

    /** Bank alterations, letters and hand-offs a stopped worker left undone. */
    async finishCollectionSteps(input: {
      livemode: boolean;
      testClockId: string | null;
      limit: number;
    }): Promise<number> {
      return whileBeating(() => callAdapter(() => deps.collection.finishUnfinished(input)));
    },
  };
}

/**
 * Heartbeats every 5 s while `work` runs: a page's bank alterations can outlast the heartbeat
 * timeout on a busy day, and a page retried for a missed heartbeat repeats nothing but costs time
 * (bench/overdue-day.ts saw one).
 */
async function whileBeating<T>(work: () => Promise<T>): Promise<T> {
  heartbeatSafe();
  const timer = setInterval(heartbeatSafe, 5_000);
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}

function heartbeatSafe(): void {
  try {
    heartbeat();
  } catch {
    // Outside an activity context (a direct call from a script).
  }
}
