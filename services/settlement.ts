import type { Client } from '@temporalio/client';
import { WorkflowIdReusePolicy, WorkflowIdConflictPolicy } from '@temporalio/client';
import type { Knex } from '../db/knex';
import type { Scope } from '../domain/scope';
import { recordAudit, type AuditActor } from '../db/audit-log';
import {
  createSettlementRunRepository,
  type RunFilters,
  type SettlementLineRow,
  type SettlementRunRow,
} from '../db/settlement-runs';
import { createPayoutRepository, findPayoutDestination, type PayoutRow } from '../db/payouts';
import { ConflictError, NotFoundError, ServiceUnavailableError } from '../domain/errors';
import { nextBankingDay } from '../domain/banking-days';
import {
  WorkflowType,
  approveSignal,
  payoutConfirmedSignal,
  settlementDayWorkflowId,
  settlementRunWorkflowId,
  type PayoutConfirmation,
  type Workflows,
} from '../workflows/contract';
import { unix } from '../domain/unix-time';

export interface SettlementServiceDeps {
  knex: Knex;
  /** Temporal client; null: approval is recorded and the run's hourly re-check picks it up. */
  client: Client | null;
  taskQueue: string;
}

/** A settlement run as the API shows it (Stripe-like, amounts in whole ISK). */
export function presentSettlementRun(row: SettlementRunRow, payout: PayoutRow | undefined) {
  return {
    id: row.id,
    object: 'settlement_run' as const,
    livemode: row.livemode,
    status: row.status,
    settlement_date: row.settlement_date,
    cutoff: unix(row.cutoff),
    currency: 'ISK' as const,
    gross: row.gross,
    fee: row.fee,
    net: row.net,
    line_count: row.line_count,
    payout: payout ? presentPayout(payout) : null,
    approved_at: unix(row.approved_at),
    submitted_at: unix(row.submitted_at),
    paid_at: unix(row.paid_at),
    failure_reason: row.failure_reason,
    created: unix(row.created_at),
  };
}

export function presentPayout(p: PayoutRow) {
  return {
    id: p.id,
    object: 'payout' as const,
    status: p.status,
    amount: p.amount,
    currency: 'ISK' as const,
    destination_account: p.destination_account,
    end_to_end_id: p.end_to_end_id,
    channel: p.channel,
    file_name: p.file_name,
    submitted_at: unix(p.submitted_at),
    paid_at: unix(p.paid_at),
  };
}

/** An operator sees whose run it is and who approved it. */
export function presentOperatorRun(row: SettlementRunRow, payout: PayoutRow | undefined) {
  return { ...presentSettlementRun(row, payout), merchant: row.merchant_id, approved_by: row.approved_by };
}

export function presentLine(l: SettlementLineRow) {
  return {
    id: String(l.id),
    object: 'settlement_line' as const,
    kind: l.kind,
    fee_kind: l.fee_kind,
    source: l.source_id,
    payment_intent: l.payment_intent_id,
    gross: l.gross,
    fee: l.fee,
    net: l.net,
    currency: 'ISK' as const,
    occurred_at: unix(l.occurred_at),
  };
}

export const LINES_CSV_HEADER = 'id,kind,fee_kind,source,payment_intent,gross,fee,net,currency,occurred_at';

const csvField = (v: string): string => (/[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);

/** The lines of a run as CSV: a header row, exact integers, times in ISO 8601 UTC, CRLF-free. */
export function linesCsv(lines: SettlementLineRow[]): string {
  const rows = lines.map((l) =>
    [
      String(l.id),
      l.kind,
      l.fee_kind,
      l.source_id,
      l.payment_intent_id ?? '',
      String(l.gross),
      String(l.fee),
      String(l.net),
      'ISK',
      l.occurred_at.toISOString(),
    ]
      .map(csvField)
      .join(','),
  );
  return [LINES_CSV_HEADER, ...rows].join('\n') + '\n';
}

/**
 * A payout goes to the merchant's bank account and kennitala: approving (or retrying) a run of a
 * merchant without them is refused up front, instead of failing the run after approval.
 */
async function requirePayoutDestination(db: Knex | Knex.Transaction, merchantId: string) {
  const destination = await findPayoutDestination(db, merchantId);
  if (!destination)
    throw new ConflictError(
      'The merchant has no bank account and kennitala to pay out to; they must be added to the merchant profile first',
      'merchant_payout_destination_missing',
      'id',
    );
  return destination;
}

/**
 * Settlement runs for the merchant API, the operator API and the finance dashboard: one place that
 * approves a run (with its audit record) and starts settlement days.
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

  return {
    /**
     * An operator approves a run awaiting review: status, approver and audit record in one
     * transaction; then the run's workflow is woken to write and submit the payout. Only a
     * `pending_review` run can be approved (409 otherwise).
     */
    async approveRun(runId: string, actor: AuditActor): Promise<SettlementRunRow> {
      const approved = await deps.knex.transaction(async (trx) => {
        const run = await runs.findForOperator(runId, trx);
        if (!run) throw new NotFoundError(`No such settlement run: '${runId.slice(0, 64)}'`, 'id');
        const scope: Scope = { merchantId: run.merchant_id, livemode: run.livemode };
        if (run.status === 'pending_review') await requirePayoutDestination(trx, run.merchant_id);
        const now = new Date();
        const row = await runs.transition(
          scope,
          run.id,
          ['pending_review'],
          { status: 'approved', approved_by: actor.name, approved_at: now },
          trx,
        );
        if (!row)
          throw new ConflictError(
            `A settlement run that is ${run.status} cannot be approved; only pending_review runs can`,
            'settlement_run_not_pending_review',
            'id',
          );
        await recordAudit(trx, {
          actor,
          action: 'settlement_run.approved',
          objectType: 'settlement_run',
          objectId: row.id,
          livemode: row.livemode,
          merchantId: row.merchant_id,
          data: { gross: row.gross, fee: row.fee, net: row.net, settlement_date: row.settlement_date },
        });
        return row;
      });
      // After commit: the approval stands even if Temporal is briefly away (the workflow re-reads hourly).
      await wakeRun(approved, approveSignal).catch(() => undefined);
      return approved;
    },

    /**
     * An operator sends a failed run's payout again, once what failed is mended (say the merchant's
     * bank account added): `failed → approved`, its unsent payout back to `pending` with the
     * merchant's account as it is now, an audit record, and the run's workflow started again. A
     * failed run only ever failed before its payout reached the bank, so nothing can be paid twice.
     * An `approved` run whose payout has not gone can be retried too: that only starts its workflow
     * again, the way out when the workflow service did not answer the first time (503 then).
     */
    async retryRun(runId: string, actor: AuditActor): Promise<SettlementRunRow> {
      const retried = await deps.knex.transaction(async (trx) => {
        const run = await runs.findForOperator(runId, trx);
        if (!run) throw new NotFoundError(`No such settlement run: '${runId.slice(0, 64)}'`, 'id');
        const scope: Scope = { merchantId: run.merchant_id, livemode: run.livemode };
        if (run.status !== 'failed' && run.status !== 'approved')
          throw new ConflictError(
            `A settlement run that is ${run.status} cannot be retried; only failed (or approved, unsent) runs can`,
            'settlement_run_not_failed',
            'id',
          );
        const payout = await payouts.findByRun(scope, run.id, trx);
        if (payout && payout.status !== 'failed' && payout.status !== 'pending')
          throw new ConflictError(
            `The run's payout is ${payout.status}: it reached the bank and is not sent again`,
            'payout_already_submitted',
            'id',
          );
        const destination = await requirePayoutDestination(trx, run.merchant_id);
        if (run.status === 'approved') return run; // only the workflow is started again
        const now = new Date();
        const row = await runs.transition(
          scope,
          run.id,
          ['failed'],
          {
            status: 'approved',
            approved_by: actor.name,
            approved_at: now,
            failed_at: null,
            failure_reason: null,
          },
          trx,
        );
        if (!row)
          throw new ConflictError(
            'The settlement run changed meanwhile; try again',
            'settlement_run_changed',
            'id',
          );
        if (payout)
          await trx('payouts').where({ id: payout.id, status: payout.status }).update({
            status: 'pending',
            failure_reason: null,
            destination_account: destination.bankAccount,
            destination_kennitala: destination.kennitala,
            updated_at: now,
          });
        await recordAudit(trx, {
          actor,
          action: 'settlement_run.retried',
          objectType: 'settlement_run',
          objectId: row.id,
          livemode: row.livemode,
          merchantId: row.merchant_id,
          data: { net: row.net, previous_failure: run.failure_reason, payout: payout?.id ?? null },
        });
        return row;
      });
      // The run is approved now; unlike approval, no workflow may be waiting for it, so a failure to
      // start one is the operator's to see (retrying again starts it).
      try {
        await wakeRun(retried, approveSignal);
      } catch {
        throw new ServiceUnavailableError(
          'The run is approved, but the workflow service did not answer; retry it again to send the payout',
          'workflows_unavailable',
        );
      }
      if (!deps.client)
        throw new ServiceUnavailableError(
          'The run is approved, but the workflow service is not connected; retry it again to send the payout',
          'workflows_unavailable',
        );
      return retried;
    },

    /** Wakes the run's workflow after bank sync marked its payout paid (also done hourly by itself). */
    async confirmPayout(run: SettlementRunRow): Promise<void> {
      await wakeRun(run, payoutConfirmedSignal);
    },

    /**
     * Runs a settlement day now and waits for its runs to open: `date` defaults to the next banking
     * day, the cutoff is now. Repeating it for the same day opens nothing new.
     */
    async runSettlementDay(input: { livemode: boolean; date?: string }): Promise<{
      settlementDate: string;
      runs: SettlementRunRow[];
    }> {
      if (!deps.client)
        throw new ServiceUnavailableError(
          'Settlement needs the workflow service, which is not connected',
          'workflows_unavailable',
        );
      const settlementDate = input.date ?? nextBankingDay(new Date().toISOString().slice(0, 10));
      const result = await deps.client.workflow.execute<Workflows['settlementDay']>(
        WorkflowType.settlementDay,
        {
          workflowId: settlementDayWorkflowId(input.livemode, settlementDate),
          taskQueue: deps.taskQueue,
          args: [{ livemode: input.livemode, settlementDate }],
          // A day may be run again (late payments); one already running is joined, not doubled.
          workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
          workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
        },
      );
      return {
        settlementDate,
        runs: await runs.listByDate(input.livemode, result.settlementDate ?? settlementDate),
      };
    },

    async listRuns(
      scope: Scope,
      filters: RunFilters,
      page: { limit: number; startingAfter?: string; endingBefore?: string },
    ) {
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

    async getRun(scope: Scope, id: string): Promise<SettlementRunRow> {
      const run = await runs.find(scope, id);
      if (!run) throw new NotFoundError(`No such settlement run: '${id.slice(0, 64)}'`, 'id');
      return run;
    },

    async presentRun(scope: Scope, run: SettlementRunRow) {
      return presentSettlementRun(run, await payouts.findByRun(scope, run.id));
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

    async presentForOperator(rows: SettlementRunRow[]) {
      const live = rows.filter((r) => r.livemode).map((r) => r.id);
      const test = rows.filter((r) => !r.livemode).map((r) => r.id);
      const [a, b] = await Promise.all([payouts.byRuns(true, live), payouts.byRuns(false, test)]);
      return rows.map((r) => presentOperatorRun(r, (r.livemode ? a : b).get(r.id)));
    },

    lines: (scope: Scope, runId: string, page: { limit: number; startingAfter?: number }) =>
      runs.lines(scope, runId, page),
    allLines: (scope: Scope, runId: string) => runs.allLines(scope, runId),
  };
}

export type SettlementService = ReturnType<typeof createSettlementService>;
