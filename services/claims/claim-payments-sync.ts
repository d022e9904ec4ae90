import type { Knex } from '../../db/knex';
import type { WorkerMetrics } from '../../stack/worker-metrics';
import { claimsBankFor, environmentsWithClaimsBank, type ClaimsBanks } from './claims-bank';
import { createClaimOutcomeNotices, type ClaimOutcomeNoticeDeps } from './claim-outcome-notices';
import { createClaimTransactionApplier } from './claim-transaction';
import { markClaimsCancelledAtBank } from './claims-cancelled-at-bank';
import { createCollectorPayments, type Collectors } from '../collection/collector-payments';

export interface ClaimSyncResult {
  read: number;
  applied: number;
  /** Claims found cancelled at the bank (by the bank or the payer) and marked cancelled. */
  cancelled: number;
}

export type ClaimPaymentsSyncDeps = ClaimsBanks &
  ClaimOutcomeNoticeDeps & {
    knex: Knex;
    /** The worker's Prometheus metrics; unset: nothing is counted (tests, benchmarks). */
    metrics?: WorkerMetrics | undefined;
    /** The collectors handed-off kröfur went to, whose payments are read back too (decision 0248). */
    collectors?: Collectors | undefined;
  };

/** Reading back from the bank what became of issued claims: paid, partly paid, reversed, cancelled. */
export function createClaimPaymentsSync(deps: ClaimPaymentsSyncDeps) {
  const notices = createClaimOutcomeNotices(deps);
  const applyTransaction = createClaimTransactionApplier({ knex: deps.knex, notices });
  const collectorPayments = createCollectorPayments({
    ...deps,
    collectors: deps.collectors ?? {},
    applyTransaction,
  });

  return {
    /**
     * Reads the bank's claim transactions booked in a window around today and applies each one once
     * (unique bank transaction key): payments, partial payments and reversals.
     */
    async sync(input: { today?: string; lookbackDays?: number } = {}): Promise<ClaimSyncResult> {
      const today = input.today ?? new Date().toISOString().slice(0, 10);
      const day = (offset: number) =>
        new Date(Date.parse(`${today}T00:00:00Z`) + offset * 86_400_000).toISOString().slice(0, 10);
      const query = { dateFrom: day(-(input.lookbackDays ?? 35)), dateTo: day(10), itemsPerPage: 100 };
      let read = 0;
      let applied = 0;
      let cancelled = 0;
      const changed: string[] = [];
      // Collectors first: a krafa a collector was paid is cancelled at the bank before Skil records
      // the payment, and the bank's cancellations below must find it paid, not cancelled (0248).
      const fromCollectors = await collectorPayments.sync();
      read += fromCollectors.read;
      applied += fromCollectors.applied.length;
      changed.push(...fromCollectors.applied);
      // Each environment's claims are read from its own bank (decision 0177); none at all is a failure.
      const environments = environmentsWithClaimsBank(deps);
      if (environments.length === 0) claimsBankFor(deps, false);
      for (const livemode of environments) {
        const bank = claimsBankFor(deps, livemode);
        for (let page = 1; ; page++) {
          const res = await bank.listClaimTransactions({ ...query, page });
          for (const tx of res.items) {
            read++;
            const claimId = await applyTransaction(tx, livemode);
            if (claimId === null) continue;
            applied++;
            changed.push(claimId);
          }
          if (page >= res.totalPages || res.items.length === 0) break;
        }
        const cancelledAtBank = await markClaimsCancelledAtBank(deps.knex, bank, {
          livemode,
          dateFrom: query.dateFrom,
        });
        cancelled += cancelledAtBank.cancelled.length;
        changed.push(...cancelledAtBank.cancelled);
        await notices.wake(cancelledAtBank.channels);
      }
      await notices.notifySubscriptions(changed);
      deps.metrics?.claimPayments.inc(applied);
      return { read, applied, cancelled };
    },
  };
}

export type ClaimPaymentsSync = ReturnType<typeof createClaimPaymentsSync>;
