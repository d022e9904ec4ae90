import { continueAsNew, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { createCollectionActivities } from '../activities/collection';
import { ADAPTER_REFUSALS } from './contract';

type CollectionActivities = ReturnType<typeof createCollectionActivities>;

// A page is one transaction (steps recorded once per krafa and step) and then the bank, mail and
// hand-off of its steps, each marked done; a retry repeats nothing done (decision 0246).
const { collectDuePage, finishCollectionSteps } = proxyActivities<CollectionActivities>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '30 seconds',
  retry: {
    initialInterval: '1 second',
    maximumInterval: '30 seconds',
    nonRetryableErrorTypes: [...ADAPTER_REFUSALS],
  },
});

export interface CollectionRunInput {
  livemode: boolean;
  /** Epoch ms the run collects up to; unset: the workflow's start time (scheduled runs). */
  asOf?: number;
  /** Only the kröfur of this test clock's customers; null or unset: those of no clock. */
  testClockId?: string | null;
  pageSize?: number;
  lanes?: number;
  totals?: CollectionRunTotals;
}

export interface CollectionRunTotals {
  pages: number;
  claims: number;
  steps: number;
}

const PAGES_PER_RUN = 400;

/**
 * The daily collection run (`collection-run/{env}/…`, decision 0246): first finishes the steps a
 * stopped worker left half done, then pages through the kröfur due for a step by `asOf`, lanes side
 * by side over hash partitions, until each lane's page comes back short. Set-based, as the billing
 * run is: a day when 100,000 kröfur pass their eindagi is pages, not 100,000 workflows.
 */
export async function collectionRun(input: CollectionRunInput): Promise<CollectionRunTotals> {
  const asOf = input.asOf ?? Date.now();
  const lanes = input.lanes ?? 4;
  const limit = input.pageSize ?? 500;
  const testClockId = input.testClockId ?? null;
  const totals: CollectionRunTotals = input.totals ?? { pages: 0, claims: 0, steps: 0 };
  if (!input.totals) await finishCollectionSteps({ livemode: input.livemode, testClockId, limit: 1000 });
  let pagesLeft = PAGES_PER_RUN;
  let unfinished = false;
  await Promise.all(
    Array.from({ length: lanes }, async (_, lane) => {
      for (;;) {
        if (pagesLeft <= 0 || workflowInfo().continueAsNewSuggested) {
          unfinished = true;
          return;
        }
        pagesLeft -= 1;
        const r = await collectDuePage({ livemode: input.livemode, asOf, testClockId, lane, lanes, limit });
        totals.pages += 1;
        totals.claims += r.claims;
        totals.steps += r.steps;
        if (!r.more) return;
      }
    }),
  );
  if (unfinished) return continueAsNew<typeof collectionRun>({ ...input, asOf, totals });
  return totals;
}
