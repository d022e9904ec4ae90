import type { Client } from '@temporalio/client';
import { WorkflowIdReusePolicy, WorkflowIdConflictPolicy } from '@temporalio/client';
import type { Knex } from '../../db/knex';
import type { Scope } from '../../domain/scope';
import type { PageOptions } from '../../db/tenant';
import type { AuditActor } from '../../db/audit-log';
import {
  createSettlementRunRepository,
  type RunFilters,
  type SettlementRunRow,
} from '../../db/settlement-runs';
import { createPayoutRepository } from '../../db/payouts';
import { InvalidRequestError, NotFoundError, ServiceUnavailableError } from '../../domain/errors';
import { isBankingDay, nextBankingDay } from '../../domain/banking-days';
import {
  WorkflowType,
  approveSignal,
  payoutConfirmedSignal,
  settlementDayWorkflowId,
  settlementRunWorkflowId,
  type PayoutConfirmation,
  type Workflows,
} from '../../workflows/contract';
import {
  presentOperatorRun,
  presentSettlementRun,
  type OperatorSettlementRunObject,
  type SettlementRunObject,
} from './settlement-run-object';
import { linesCsv, presentLine } from './settlement-line-object';
import { createRunApproval } from './run-approval';

export interface SettlementServiceDeps {
  knex: Knex;
  /** Temporal client; null: approval is recorded and the run's hourly re-check picks it up. */
  client: Client | null;
  taskQueue: string;
}

/**
 * Settlement runs for the merchant API, the operator API and the finance dashboard: one place that
 * shows runs and their lines, approves a run (with its audit record) and starts settlement days.
 */
export function createSettlementService(deps: SettlementServiceDeps) {
  const runs = createSettlementRunRepository(deps.knex);
  const payouts = createPayoutRepository(deps.knex);

  /** Wakes (or, if it is gone, restarts) the run's workflow, which re-reads the run's status. */
  async function wakeRun(
    run: SettlementRunRow,
    // approveSignal takes no arguments, payoutConfirmedSignal an optional one: both fit this type.
    signal: typeof payoutConfirmedSignal,
  ): Promise<void> {
    if (!deps.client) return;
    await deps.client.workflow.signalWithStart<Workflows['settlementRun'], [PayoutConfirmation?]>(
      WorkflowType.settlementRun,
      {
        workflowId: settlementRunWorkflowId(run.livemode, run.merchant_id, run.settlement_date),
        taskQueue: deps.taskQueue,
        args: [
          {
            livemode: run.livemode,
            merchantId: run.merchant_id,
            settlementDate: run.settlement_date,
            cutoff: run.cutoff.toISOString(),
          },
        ],
        signal,
        signalArgs: [],
      },
    );
  }

  async function getRun(scope: Scope, id: string): Promise<SettlementRunRow> {
    const run = await runs.find(scope, id);
    if (!run) throw new NotFoundError(`No such settlement run: '${id.slice(0, 64)}'`, 'id');
    return run;
  }

  /** Operator views of runs of either environment, with their payouts. */
  async function presentForOperator(rows: SettlementRunRow[]) {
    const live = rows.filter((r) => r.livemode).map((r) => r.id);
    const test = rows.filter((r) => !r.livemode).map((r) => r.id);
    const [a, b] = await Promise.all([payouts.byRuns(true, live), payouts.byRuns(false, test)]);
    return rows.map((r) => presentOperatorRun(r, (r.livemode ? a : b).get(r.id)));
  }

  const approval = createRunApproval({
    knex: deps.knex,
    runs,
    payouts,
    connected: deps.client !== null,
    wakeForApproval: (run) => wakeRun(run, approveSignal),
  });

  /** The operator's view of one run, with its payout. */
  async function presentOneForOperator(row: SettlementRunRow): Promise<OperatorSettlementRunObject> {
    const scope: Scope = { merchantId: row.merchant_id, livemode: row.livemode };
    return presentOperatorRun(row, await payouts.findByRun(scope, row.id));
  }

  return {
    /** Approves a run awaiting review (audited); see run-approval. */
    approveRun: async (runId: string, actor: AuditActor) =>
      presentOneForOperator(await approval.approveRun(runId, actor)),

    /** Sends a failed run's payout again (audited); see run-approval. */
    retryRun: async (runId: string, actor: AuditActor) =>
      presentOneForOperator(await approval.retryRun(runId, actor)),

    /**
     * Wakes the merchant's approved runs in both modes, whose payouts wait on a payout account
     * change (decision 0228), once an owner confirmed it; each re-reads its run (also hourly).
     */
    async wakeApprovedRuns(merchantId: string): Promise<void> {
      for (const livemode of [false, true]) {
        const approved = await runs.list({ merchantId, livemode }, { status: 'approved' }, { limit: 100 });
        for (const run of approved.data) await wakeRun(run, approveSignal);
      }
    },

    /** Wakes the run's workflow after bank sync marked its payout paid (also done hourly by itself). */
    async confirmPayout(run: SettlementRunRow): Promise<void> {
      await wakeRun(run, payoutConfirmedSignal);
    },

    /**
     * Runs a settlement day now and waits for its runs to open: `date` (a banking day) defaults to
     * the next banking day, the cutoff is now. Repeating it for the same day opens nothing new.
     */
    async runSettlementDay(input: { livemode: boolean; date?: string }) {
      if (input.date !== undefined && !isBankingDay(input.date))
        throw new InvalidRequestError(`${input.date} is not an Iceland banking day`, {
          code: 'parameter_invalid',
          param: 'date',
        });
      if (!deps.client)
        throw new ServiceUnavailableError(
          'Settlement needs the workflow service, which is not connected',
          'workflows_unavailable',
        );
      const settlementDate = input.date ?? nextBankingDay(new Date().toISOString().slice(0, 10));
      const result = await deps.client.workflow.execute<Workflows['settlementDay']>(
        WorkflowType.settlementDay,
        {
          workflowId: settlementDayWorkflowId(input.livemode, deps.taskQueue, settlementDate),
          taskQueue: deps.taskQueue,
          args: [{ livemode: input.livemode, settlementDate }],
          // A day may be run again (late payments); one already running is joined, not doubled.
          workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
          workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
        },
      );
      const opened = await runs.listByDate(input.livemode, result.settlementDate ?? settlementDate);
      return {
        object: 'settlement_day' as const,
        settlement_date: settlementDate,
        livemode: input.livemode,
        runs: await presentForOperator(opened),
      };
    },

    async listRuns(scope: Scope, filters: RunFilters, page: PageOptions) {
      const result = await runs.list(scope, filters, page);
      const byRun = await payouts.byRuns(
        scope.livemode,
        result.data.map((r) => r.id),
      );
      return {
        data: result.data.map((r) => presentSettlementRun(r, byRun.get(r.id))),
        hasMore: result.hasMore,
      };
    },

    async retrieveRun(scope: Scope, id: string): Promise<SettlementRunObject> {
      const run = await getRun(scope, id);
      return presentSettlementRun(run, await payouts.findByRun(scope, run.id));
    },

    /** A page of a run's lines, in the order they were gathered. */
    async listLines(scope: Scope, runId: string, page: { limit: number; startingAfter?: number }) {
      const run = await getRun(scope, runId);
      const result = await runs.lines(scope, run.id, page);
      return { runId: run.id, data: result.data.map(presentLine), hasMore: result.hasMore };
    },

    /** Every line of a run as CSV. */
    async linesCsv(scope: Scope, runId: string): Promise<{ runId: string; csv: string }> {
      const run = await getRun(scope, runId);
      return { runId: run.id, csv: linesCsv(await runs.allLines(scope, run.id)) };
    },

    async listForOperator(
      livemode: boolean,
      filters: RunFilters & { merchantId?: string },
      page: { limit: number; startingAfter?: string },
    ) {
      const result = await runs.listForOperator(livemode, filters, page);
      const byRun = await payouts.byRuns(
        livemode,
        result.data.map((r) => r.id),
      );
      return {
        data: result.data.map((r) => presentOperatorRun(r, byRun.get(r.id))),
        hasMore: result.hasMore,
      };
    },
  };
}

export type SettlementService = ReturnType<typeof createSettlementService>;
