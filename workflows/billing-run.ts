import { continueAsNew, patched, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { createBillingActivities } from '../activities/billing';
import { ADAPTER_REFUSALS } from './contract';

type BillingActivities = ReturnType<typeof createBillingActivities>;

// A page is charged in one activity: create renewals, charge with bounded concurrency, finish. Every
// step is idempotent on (subscription, period_start), so a retry after a crash charges nothing
// twice; heartbeats reveal a dead worker within 10 s. Bad requests to the acquirer are not retried.
const { renewDuePage } = proxyActivities<BillingActivities>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '10 seconds',
  retry: {
    initialInterval: '1 second',
    maximumInterval: '30 seconds',
    nonRetryableErrorTypes: [...ADAPTER_REFUSALS],
  },
});

export interface BillingRunInput {
  livemode: boolean;
  /** Epoch ms the run bills up to; unset: the workflow's start time (scheduled runs). */
  asOf?: number;
  /** Only the subscriptions bound to this test clock; null or unset: those bound to none. */
  testClockId?: string | null;
  pageSize?: number;
  /** Pages charged at once, each over its own hash partition of the due subscriptions. */
  lanes?: number;
  /** Totals carried over continue-as-new. */
  totals?: BillingRunTotals;
}

export interface BillingRunTotals {
  pages: number;
  processed: number;
  paid: number;
  failed: number;
}

const ROUNDS_PER_RUN = 200;

/**
 * A billing run (`billing-run/{env}/{window}`): pages through the subscriptions due by `asOf` and
 * charges each page in one activity. Renewed subscriptions stop being due, so each lane simply asks
 * again until a page comes back short.
 */
export async function billingRun(input: BillingRunInput): Promise<BillingRunTotals> {
  const asOf = input.asOf ?? Date.now();
  // Four lanes keep both cores busy while a lane waits on its merchant's invoice numbers or on
  // PostgreSQL; runs started before this change replay with the two they had (decision 0189).
  const lanes = input.lanes ?? (patched('billing-run-four-lanes') ? 4 : 2);
  const limit = input.pageSize ?? 500;
  const totals: BillingRunTotals = input.totals ?? { pages: 0, processed: 0, paid: 0, failed: 0 };
  const page = async (lane: number): Promise<PageResult> => {
    const r = await renewDuePage({
      livemode: input.livemode,
      asOf,
      testClockId: input.testClockId ?? null,
      lane,
      lanes,
      limit,
    });
    totals.pages += 1;
    totals.processed += r.processed;
    totals.paid += r.paid;
    totals.failed += r.failed;
    return r;
  };
  // Each lane goes on to its next page as soon as its own ends (decision 0195): in rounds, the
  // lanes that finished first waited for the slowest one of the round, whose finish waits in turn
  // on the others' invoice numbers. Runs started in rounds replay in rounds.
  const unfinished = patched('billing-run-free-lanes')
    ? await freeLanes(lanes, page)
    : await inRounds(lanes, page);
  if (unfinished) return continueAsNew<typeof billingRun>({ ...input, asOf, totals });
  return totals;
}

type PageResult = Awaited<ReturnType<BillingActivities['renewDuePage']>>;

/**
 * Each lane pages until a page comes back short. True when the run stopped early to bound its
 * history (at most ROUNDS_PER_RUN pages per lane, or when Temporal suggests continuing as new).
 */
async function freeLanes(lanes: number, page: (lane: number) => Promise<PageResult>): Promise<boolean> {
  let pagesLeft = ROUNDS_PER_RUN * lanes;
  let unfinished = false;
  await Promise.all(
    Array.from({ length: lanes }, async (_, lane) => {
      for (;;) {
        if (pagesLeft <= 0 || workflowInfo().continueAsNewSuggested) {
          unfinished = true;
          return;
        }
        pagesLeft -= 1;
        if (!(await page(lane)).more) return;
      }
    }),
  );
  return unfinished;
}

/** The run as it was before decision 0195: every lane's page of a round ends before the next round. */
async function inRounds(lanes: number, page: (lane: number) => Promise<PageResult>): Promise<boolean> {
  let open = Array.from({ length: lanes }, (_, lane) => lane);
  for (let round = 0; open.length > 0; round++) {
    if (round >= ROUNDS_PER_RUN || workflowInfo().continueAsNewSuggested) return true;
    const results = await Promise.all(open.map((lane) => page(lane)));
    open = open.filter((_, i) => results[i]!.more);
  }
  return false;
}
