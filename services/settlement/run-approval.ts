import type { Knex } from '../../db/knex';
import type { Scope } from '../../domain/scope';
import type { SettlementRunRepository, SettlementRunRow } from '../../db/settlement-runs';
import { recordAudit, type AuditActor } from '../../db/audit-log';
import { findPayoutDestination, type PayoutRepository } from '../../db/payouts';
import { ConflictError, NotFoundError, ServiceUnavailableError } from '../../domain/errors';

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

export interface RunApprovalDeps {
  knex: Knex;
  runs: SettlementRunRepository;
  payouts: PayoutRepository;
  /** Whether a workflow service is connected (a retry without one answers 503). */
  connected: boolean;
  /** Signals (or restarts) the run's workflow that the run is approved; it re-reads the run. */
  wakeForApproval: (run: SettlementRunRow) => Promise<void>;
}

/** The operator's audited actions on a run: approval, and a retry of a failed one. */
export function createRunApproval(deps: RunApprovalDeps) {
  const { runs, payouts } = deps;

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
      await deps.wakeForApproval(approved).catch(() => undefined);
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
        const row = await runs.transition(
          scope,
          run.id,
          ['failed'],
          {
            status: 'approved',
            approved_by: actor.name,
            approved_at: new Date(),
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
        if (payout) await payouts.readdress(scope, payout.id, payout.status, destination, trx);
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
        await deps.wakeForApproval(retried);
      } catch {
        throw new ServiceUnavailableError(
          'The run is approved, but the workflow service did not answer; retry it again to send the payout',
          'workflows_unavailable',
        );
      }
      if (!deps.connected)
        throw new ServiceUnavailableError(
          'The run is approved, but the workflow service is not connected; retry it again to send the payout',
          'workflows_unavailable',
        );
      return retried;
    },
  };
}
