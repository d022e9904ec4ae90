import { createHash } from 'node:crypto';
import type { Knex } from '../../db/knex';
import type { WorkerMetrics } from '../../stack/worker-metrics';
import type { ClaimStatusError } from '../../adapters/banks/claims-api';
import { claimIdOf } from '../../adapters/banks/claims-api';
import { toCreateClaimDetails } from '../../db/claims';
import { createClaimBatchRepository } from '../../db/claim-batches';
import { recordEvents } from '../../db/event-batch';
import { issueClaimInvoices } from '../invoices/issue';
import { claimBatchWorkflowId } from '../../workflows/contract';
import { recordClaimRefusal } from './claim-refusal';
import { claimsBankFor, type ClaimsBanks } from './claims-bank';
import { claimEvent, createClaimOutcomeNotices, type ClaimOutcomeNoticeDeps } from './claim-outcome-notices';

export interface ClaimBatchResult {
  done: boolean;
  issued: number;
  failed: number;
}

export type ClaimBatchServiceDeps = ClaimsBanks &
  ClaimOutcomeNoticeDeps & {
    knex: Knex;
    /** The worker's Prometheus metrics; unset: nothing is counted (tests, benchmarks). */
    metrics?: WorkerMetrics | undefined;
  };

/**
 * Issuing pending claims to the bank in batches (the claim batch workflow's steps): collect a
 * batch, send it to the bank's batch endpoint, and record the bank's answer for each claim.
 */
export function createClaimBatchService(deps: ClaimBatchServiceDeps) {
  const { knex } = deps;
  const batches = createClaimBatchRepository(knex);
  const notices = createClaimOutcomeNotices(deps);

  /**
   * Marks claims issued (by bank claim id) and records claim.created for each, with the invoices of
   * the sales they collect, in one transaction.
   */
  async function markIssued(bankClaimIds: string[]): Promise<number> {
    if (bankClaimIds.length === 0) return 0;
    let channels: string[] = [];
    const rows = await knex.transaction(async (trx) => {
      const updated = await batches.markIssued(bankClaimIds, trx);
      channels = await recordEvents(
        trx,
        updated.map((r) => claimEvent('claim.created', r)),
      );
      // Last: the invoices hold the merchants' invoice sequences until commit (decision 0211).
      channels.push(
        ...(await issueClaimInvoices(
          trx,
          updated.map((r) => r.id),
        )),
      );
      return updated;
    });
    await notices.wake(channels);
    return rows.length;
  }

  return {
    /**
     * Takes pending claims of an environment into a batch (at most `limit`), and returns every claim
     * of the batch still waiting to be issued: a retried batch gets the same claims back. Claims left
     * in a batch that stopped for an hour are taken over (the bank answers CLAIM_EXISTS for any it
     * already created).
     */
    async collect(input: { livemode: boolean; batchKey: string; limit: number }): Promise<string[]> {
      return batches.collect(input);
    },

    /**
     * Sends the batch's claims to the bank's batch endpoint; the bank's batch id. The idempotency
     * identity is the batch and its claims, so a retry of the same send is answered from the bank's
     * record, never acted twice.
     */
    async submit(input: { livemode: boolean; batchKey: string; claimIds: string[] }): Promise<string> {
      const rows = await batches.listByIds(input.claimIds);
      const digest = createHash('sha256')
        .update(rows.map((r) => r.id).join(','))
        .digest('hex')
        .slice(0, 16);
      const status = await claimsBankFor(deps, input.livemode).createClaimsBatch(
        rows.map(toCreateClaimDetails),
        // The batch's workflow id and its claims: the bank keeps idempotency on these bytes.
        { idempotencyIdentity: `${claimBatchWorkflowId(input.livemode, input.batchKey)}/${digest}` },
      );
      if (!status.batchId) throw new Error('the bank answered the batch without a batchId');
      return status.batchId;
    },

    /**
     * Reads the batch at the bank; once nothing is pending, records each claim key (issued) or the
     * bank's error on the claim. CLAIM_EXISTS on a claim number Skil allocated means an earlier send
     * created it: the claim is issued.
     */
    async record(input: { batchId: string; livemode?: boolean }): Promise<ClaimBatchResult> {
      // Batches started before environments had banks of their own name none: the test bank's.
      const status = await claimsBankFor(deps, input.livemode ?? false).getBatch(input.batchId);
      if ((status.pending ?? 0) > 0) return { done: false, issued: 0, failed: 0 };
      const idOf = (s: { claimId?: string; claimKey?: ClaimStatusError['claimKey'] }) =>
        s.claimId ?? (s.claimKey ? claimIdOf(s.claimKey) : null);
      const issuedIds: string[] = [];
      const failures: { id: string; code: string | null; message: string }[] = [];
      for (const s of status.actions?.successes ?? []) {
        const id = idOf(s);
        if (id) issuedIds.push(id);
      }
      for (const e of status.actions?.errors ?? []) {
        const id = idOf(e);
        if (!id) continue;
        if (e.resultCode === 'CLAIM_EXISTS') issuedIds.push(id);
        else
          failures.push({
            id,
            code: e.resultCode ?? null,
            message: e.resultMessage ?? 'refused by the bank',
          });
      }
      const issued = await markIssued(issuedIds);
      for (const f of failures)
        await notices.wake(await recordClaimRefusal(knex, f.id, { code: f.code, message: f.message }));
      // A subscription waiting for a refused krafa goes to its end state (decision 0105).
      await notices.notifySubscriptions(
        failures.map((f) => f.id),
        'bank_claim_id',
      );
      deps.metrics?.claims.inc({ outcome: 'issued' }, issued);
      deps.metrics?.claims.inc({ outcome: 'refused' }, failures.length);
      return { done: true, issued, failed: failures.length };
    },
  };
}

export type ClaimBatchService = ReturnType<typeof createClaimBatchService>;
