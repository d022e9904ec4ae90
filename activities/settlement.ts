import type { WorkerMetrics } from '../stack/worker-metrics';
import { ApplicationFailure, heartbeat } from '@temporalio/activity';
import type { Knex } from '../db/knex';
import type { Logger } from '../stack/logger';
import type { Scope } from '../domain/scope';
import type { BankConnection } from '../adapters/banks/bank-connections';
import { createPain001SftpChannel, type PayoutChannel } from '../adapters/banks/payout-channel';
import { isBankingDay, nextBankingDay } from '../domain/banking-days';
import { accountDigits } from '../domain/settlement-ids';
import { createSettlementRunRepository, type SettlementRunStatus } from '../db/settlement-runs';
import { createPayoutRepository, findPayoutDestination } from '../db/payouts';
import { refundTransfersOfRun } from '../db/claim-refunds';
import { recordAudit } from '../db/audit-log';
import { createMerchantRepository } from '../db/merchants';
import { FailureType } from '../workflows/contract';
import { callAdapter } from './adapter-failure';

export interface SettlementActivityDeps {
  knex: Knex;
  /** The worker's Prometheus metrics; unset: nothing is counted (tests, benchmarks). */
  metrics?: WorkerMetrics;
  log: Logger;
  /** Connections whose SFTP outbox takes payout files; the one of the run's environment is used. */
  bankConnections?: BankConnection[] | undefined;
  /** Overrides the channel per environment (tests, or a second channel such as IOBWS 3.2 payments). */
  payoutChannel?: ((livemode: boolean) => PayoutChannel | undefined) | undefined;
  /** SETTLEMENT_AUTO_APPROVE_MAX_NET: runs with net at or under it are approved by policy; 0 = off. */
  autoApproveMaxNet?: number | undefined;
}

/** A run as workflows see it: identity, day and status, nothing more. */
export interface SettlementRunRef {
  runId: string;
  merchantId: string;
  livemode: boolean;
  settlementDate: string;
  status: SettlementRunStatus;
  net: number;
}

export interface SettlementDayPlan {
  /** Unset: nothing to do today (a scheduled run on a closed day). */
  settlementDate: string | null;
  merchantIds: string[];
}

export interface RunKey {
  runId: string;
  merchantId: string;
  livemode: boolean;
}

const scopeOf = (k: { merchantId: string; livemode: boolean }): Scope => ({
  merchantId: k.merchantId,
  livemode: k.livemode,
});

/** Settlement runs and payouts: gathering lines, writing and submitting payouts (decision 0093). */
export function createSettlementActivities(deps: SettlementActivityDeps) {
  const runs = createSettlementRunRepository(deps.knex);
  const payouts = createPayoutRepository(deps.knex);
  const merchants = createMerchantRepository(deps.knex);
  const channelFor = (livemode: boolean): PayoutChannel | undefined => {
    if (deps.payoutChannel) return deps.payoutChannel(livemode);
    const connection = deps.bankConnections?.find((c) => c.livemode === livemode);
    return connection && createPain001SftpChannel(connection);
  };
  /** Counts a gathered run by the status it was gathered in (a re-gather of an open run counts again). */
  const counted = (ref: SettlementRunRef): SettlementRunRef => {
    deps.metrics?.settlementRuns.inc({ status: ref.status });
    return ref;
  };
  const toRef = (r: {
    id: string;
    merchant_id: string;
    livemode: boolean;
    settlement_date: string;
    status: SettlementRunStatus;
    net: number;
  }): SettlementRunRef => ({
    runId: r.id,
    merchantId: r.merchant_id,
    livemode: r.livemode,
    settlementDate: r.settlement_date,
    status: r.status,
    net: r.net,
  });

  /** Marks a run (and its payout, if written) failed with a reason operators can act on. */
  async function failRun(key: RunKey, reason: string): Promise<'failed'> {
    const scope = scopeOf(key);
    await deps.knex.transaction(async (trx) => {
      const now = new Date();
      const failed = await runs.transition(
        scope,
        key.runId,
        ['approved', 'submitted'],
        { status: 'failed', failed_at: now, failure_reason: reason },
        trx,
      );
      await payouts.failUnsent(scope, key.runId, reason, now, trx);
      if (failed)
        await recordAudit(trx, {
          actor: { kind: 'system', id: null, name: 'settlement' },
          action: 'settlement_run.failed',
          objectType: 'settlement_run',
          objectId: key.runId,
          livemode: key.livemode,
          merchantId: key.merchantId,
          data: { reason },
        });
    });
    deps.log.warn({ runId: key.runId, reason }, 'settlement run failed');
    return 'failed' as const;
  }

  return {
    /**
     * The banking day a settlement day settles and the merchants to gather. On demand the date is
     * the given one or the next banking day; a scheduled run on a closed day does nothing, so the
     * weekend's money is gathered on Monday with Monday's cutoff.
     */
    async planSettlementDay(input: {
      livemode: boolean;
      cutoff: string;
      settlementDate?: string;
      scheduled?: boolean;
    }): Promise<SettlementDayPlan> {
      const today = input.cutoff.slice(0, 10); // Iceland keeps UTC all year
      if (input.scheduled && !isBankingDay(today)) return { settlementDate: null, merchantIds: [] };
      const settlementDate = input.settlementDate ?? nextBankingDay(today);
      const unsettled = await runs.merchantsWithUnsettled(input.livemode, new Date(input.cutoff));
      // Merchants whose run for the day exists already: their workflows are (re)started, harmlessly.
      const existing = (await runs.listByDate(input.livemode, settlementDate)).map((r) => r.merchant_id);
      return { settlementDate, merchantIds: [...new Set([...existing, ...unsettled])].sort() };
    },

    /** Gathers the day's run of each merchant, each in its own transaction; the runs that exist. */
    async gatherSettlementRuns(input: {
      livemode: boolean;
      settlementDate: string;
      cutoff: string;
      merchantIds: string[];
    }): Promise<SettlementRunRef[]> {
      const out: SettlementRunRef[] = [];
      for (const merchantId of input.merchantIds) {
        const run = await runs.gather({
          scope: { merchantId, livemode: input.livemode },
          settlementDate: input.settlementDate,
          cutoff: new Date(input.cutoff),
          autoApproveMaxNet: deps.autoApproveMaxNet ?? 0,
        });
        if (run) out.push(counted(toRef(run)));
        heartbeat(merchantId);
      }
      return out;
    },

    /** One merchant's run for the day: gathered now, or the one an earlier gather opened. */
    async gatherSettlementRun(input: {
      livemode: boolean;
      merchantId: string;
      settlementDate: string;
      cutoff: string;
    }): Promise<SettlementRunRef | null> {
      const run = await runs.gather({
        scope: scopeOf(input),
        settlementDate: input.settlementDate,
        cutoff: new Date(input.cutoff),
        autoApproveMaxNet: deps.autoApproveMaxNet ?? 0,
      });
      return run && counted(toRef(run));
    },

    /** The run's status in the database, the source of truth signals only hint at. */
    async settlementRunStatus(key: RunKey): Promise<SettlementRunStatus> {
      const run = await runs.find(scopeOf(key), key.runId);
      if (!run)
        throw ApplicationFailure.nonRetryable(
          `no settlement run ${key.runId}`,
          FailureType.SettlementRunMissing,
        );
      return run.status;
    },

    /**
     * Writes the approved run's payout once (`{stl_id}:payout`) to the merchant's bank account as
     * it is now. A merchant without an account or kennitala fails the run with that reason.
     */
    async writePayout(key: RunKey): Promise<{ payoutId: string } | { status: 'failed' }> {
      const scope = scopeOf(key);
      const run = await runs.find(scope, key.runId);
      if (!run)
        throw ApplicationFailure.nonRetryable(
          `no settlement run ${key.runId}`,
          FailureType.SettlementRunMissing,
        );
      const existing = await payouts.findByRun(scope, key.runId);
      if (existing) return { payoutId: existing.id };
      if (run.status !== 'approved')
        throw ApplicationFailure.nonRetryable(
          `run ${run.id} is ${run.status}, not approved`,
          FailureType.SettlementRunState,
        );
      const destination = await findPayoutDestination(deps.knex, key.merchantId);
      if (!destination)
        return { status: await failRun(key, 'The merchant has no bank account and kennitala to pay out to') };
      const channel = channelFor(key.livemode);
      if (!channel)
        return {
          status: await failRun(
            key,
            `No payout channel (bank connection) for ${key.livemode ? 'live' : 'test'} mode`,
          ),
        };
      const payout = await payouts.createOnce(scope, {
        runId: run.id,
        amount: run.net,
        destinationAccount: destination.bankAccount,
        destinationKennitala: destination.kennitala,
        channel: channel.name,
      });
      return { payoutId: payout.id };
    },

    /** Fails an approved or submitted run (and its unsent payout) after the bank refused the payout. */
    async failSettlementRun(input: RunKey & { reason: string }): Promise<SettlementRunStatus> {
      const { reason, ...key } = input;
      await failRun(key, reason);
      const run = await runs.find(scopeOf(key), key.runId);
      if (!run)
        throw ApplicationFailure.nonRetryable(
          `no settlement run ${key.runId}`,
          FailureType.SettlementRunMissing,
        );
      return run.status;
    },

    /**
     * Hands the payout to its channel and marks payout and run submitted, in one transaction after
     * the upload. A retry after a lost answer uploads the same file name, which the channel treats as
     * delivered; a payout already submitted is not sent again.
     */
    async submitPayout(key: RunKey & { payoutId: string }): Promise<SettlementRunStatus> {
      const scope = scopeOf(key);
      const payout = await payouts.find(scope, key.payoutId);
      const run = await runs.find(scope, key.runId);
      if (!payout || !run)
        throw ApplicationFailure.nonRetryable('payout or run missing', FailureType.SettlementRunMissing);
      if (payout.status !== 'pending') return run.status;
      const channel = channelFor(key.livemode);
      if (!channel) return failRun(key, 'No payout channel (bank connection) for this mode');
      const merchant = await merchants.findById(key.merchantId);
      const merchantName = merchant?.name ?? key.merchantId;
      // The krafa refunds this run nets go back to their payers in the same file (decision 0101).
      const refunds = (await refundTransfersOfRun(deps.knex, scope, run.id)).map((r) => ({
        refundId: r.refundId,
        amount: r.amount,
        creditor: { name: r.name ?? r.kennitala, kennitala: r.kennitala, account: r.account },
        remittance: `Refund ${r.refundId} ${merchantName}`.slice(0, 140),
      }));
      const { fileName } = await callAdapter(() =>
        channel.submit({
          runId: run.id,
          payoutId: payout.id,
          amount: payout.amount,
          requestedDate: run.settlement_date,
          createdAt: payout.created_at,
          creditor: {
            name: merchantName,
            kennitala: payout.destination_kennitala,
            account: accountDigits(payout.destination_account),
          },
          refunds,
        }),
      );
      return deps.knex.transaction(async (trx) => {
        await payouts.markSubmitted(scope, payout.id, fileName, trx);
        const submitted = await runs.transition(
          scope,
          run.id,
          ['approved'],
          { status: 'submitted', submitted_at: new Date() },
          trx,
        );
        return submitted?.status ?? (await runs.find(scope, run.id, trx))!.status;
      });
    },
  };
}

export type SettlementActivities = ReturnType<typeof createSettlementActivities>;
