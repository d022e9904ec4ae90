import type { Knex } from '../../db/knex';
import type { Logger } from '../../stack/logger';
import type { WorkerMetrics } from '../../stack/worker-metrics';
import type { CardAcquirer } from '../../adapters/acquirers/card-acquirer';
import { createRenewalRepository } from '../../db/renewals';
import { expireClaims, lifecycleRefsOfClaims } from '../../db/claim-collection';
import { creditCancelledClaim } from '../invoices/issue';
import type { ChargeReason, ChargeSummary, LifecycleRef } from './charge-reason';
import { createCardCharges } from './charge-cards';
import { openRenewals } from './open-renewals';
import { finishRenewals } from './finish-renewals';
import { countPage } from './count-page';

export type { ChargeReason, ChargeSummary, LifecycleRef } from './charge-reason';
export { renewalKey } from './charge-cards';

export interface RenewalServiceDeps {
  knex: Knex;
  /** The worker's Prometheus metrics; unset: nothing is counted (tests, benchmarks). */
  metrics?: WorkerMetrics;
  log: Logger;
  acquirer: CardAcquirer;
  wakeChannels: (channelIds: string[]) => Promise<void>;
  /** Starts or signals the lifecycle workflow of each subscription (signal-with-start). */
  notifyLifecycle: (refs: LifecycleRef[]) => Promise<void>;
  /** Card authorizations in flight at once per page. */
  chargeConcurrency?: number;
}

/** One page of a billing run: the due subscriptions of one lane of a run. */
export interface DuePage {
  livemode: boolean;
  asOf: number;
  testClockId: string | null;
  lane: number;
  lanes: number;
  limit: number;
}

/** Told how many renewals of a page have been charged so far (activities heartbeat it). */
export type ChargeProgress = (charged: number) => void;

const ignoreProgress: ChargeProgress = () => undefined;

/**
 * Renewals, the hottest path of the product (bench/renewal-day.ts): due pages and single charges,
 * all through one set-based path of three steps (create, charge, finish).
 */
export function createRenewalService(deps: RenewalServiceDeps) {
  const renewals = createRenewalRepository();
  const chargeAll = createCardCharges({
    acquirer: deps.acquirer,
    concurrency: deps.chargeConcurrency ?? 64,
  });

  /**
   * Charges the next period (or reopens the failed one, for `retry`) of each subscription. Three
   * steps, each set-based: create the renewals and payment intents (idempotent on the unique key),
   * charge what is pending with bounded concurrency, then in one transaction record the outcomes,
   * move the subscriptions and write the events and deliveries. A crash anywhere is safe to retry.
   */
  async function charge(
    subscriptionIds: string[],
    asOf: Date,
    reason: ChargeReason,
    onProgress: ChargeProgress,
  ): Promise<ChargeSummary> {
    if (subscriptionIds.length === 0) return { processed: 0, paid: 0, failed: 0 };
    const t0 = performance.now();
    const sources = await openRenewals(deps.knex, renewals, subscriptionIds, asOf, reason);
    const before = new Map(sources.map((s) => [s.id, s]));
    const t1 = performance.now();
    const pending = await renewals.findPending(deps.knex, subscriptionIds);
    const outcomes = await chargeAll(pending, onProgress);
    const t2 = performance.now();
    const { finished, channelIds, lifecycle } = await finishRenewals(deps.knex, renewals, {
      subscriptionIds,
      pending,
      outcomes,
      before,
      asOf,
      reason,
    });
    const t3 = performance.now();
    if (channelIds.length > 0) await deps.wakeChannels(channelIds);
    if (lifecycle.length > 0) await deps.notifyLifecycle(lifecycle);
    const paid = finished.filter((r) => r.status !== 'failed' && r.status !== 'void').length;
    countPage(deps.metrics, reason, finished, outcomes);
    // The profile of a page: create, charge, finish (the renewal-day benchmark reads these).
    deps.log.info(
      {
        page: subscriptionIds.length,
        createMs: Math.round(t1 - t0),
        chargeMs: Math.round(t2 - t1),
        finishMs: Math.round(t3 - t2),
        notifyMs: Math.round(performance.now() - t3),
      },
      'billing page',
    );
    return { processed: pending.length, paid, failed: finished.length - paid };
  }

  return {
    /**
     * One page of a billing run: the due subscriptions of one lane (at most `limit`), charged
     * together. Renewed ones are no longer due, so the next call finds the next page.
     */
    async renewDuePage(
      input: DuePage,
      onProgress: ChargeProgress = ignoreProgress,
    ): Promise<ChargeSummary & { more: boolean }> {
      const asOf = new Date(input.asOf);
      // Unpaid claims past their cancellation date expire, on the clock's time for clock-bound ones;
      // the subscriptions they leave unpaid go to their end state (decision 0105).
      if (input.lane === 0) {
        // Their invoices are credited for what was not paid, at the expiry (decision 0211); the
        // relay delivers the credit notes' events.
        const expired = await expireClaims(deps.knex, asOf, input.testClockId, async (trx, claims) => {
          for (const c of claims) await creditCancelledClaim(trx, { ...c, cancelled_at: asOf });
        });
        const refs = await lifecycleRefsOfClaims(deps.knex, expired);
        // Logged, not thrown: a retried page finds these kröfur expired already and would not ask again.
        if (refs.length > 0)
          await deps
            .notifyLifecycle(refs.map((r) => ({ ...r, at: asOf.getTime() })))
            .catch((err: unknown) => {
              deps.log.warn(
                { err, subscriptions: refs.map((r) => r.subscriptionId) },
                'subscriptions not signalled',
              );
            });
      }
      const ids = await renewals.findDue(deps.knex, { ...input, asOf });
      const summary = await charge(ids, asOf, 'renewal', onProgress);
      return { ...summary, more: ids.length === input.limit };
    },

    /** Charges one subscription outside a batch: its first period, the end of its trial, a retry. */
    async chargeSubscription(
      input: { subscriptionId: string; asOf: number; reason: Exclude<ChargeReason, 'renewal'> },
      onProgress: ChargeProgress = ignoreProgress,
    ): Promise<'paid' | 'failed' | 'none'> {
      const summary = await charge([input.subscriptionId], new Date(input.asOf), input.reason, onProgress);
      if (summary.processed === 0) return 'none';
      return summary.paid > 0 ? 'paid' : 'failed';
    },
  };
}

export type RenewalService = ReturnType<typeof createRenewalService>;
