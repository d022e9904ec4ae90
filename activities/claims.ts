import type { WorkerMetrics } from '../stack/worker-metrics';
import { createHash } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/activity';
import type { Knex } from '../db/knex';
import type { Logger } from '../stack/logger';
import type { ClaimsApi, ClaimStatusError, ClaimTransaction } from '../adapters/banks/claims-api';
import { claimIdOf } from '../adapters/banks/claims-api';
import { BankError } from '../adapters/banks/claims-errors';
import { claimSessionUnpaid, toCreateClaimDetails, type ClaimRow } from '../db/claims';
import { createClaimBatchRepository } from '../db/claim-batches';
import { createClaimPaymentRepository } from '../db/claim-payments';
import { recordEvents, type BatchEvent } from '../db/event-batch';
import { createPaymentIntentRepository } from '../db/payment-intents';
import { lifecycleRefsOfClaims, type ClaimLifecycleRef } from '../db/claim-collection';
import { presentClaim } from '../services/claims/claim-object';
import { recordClaimRefusal } from '../services/claims/claim-refusal';
import { presentPaymentIntent } from '../services/payments/payment-intent-object';
import { claimFee } from '../domain/fees';
import { FailureType, claimBatchWorkflowId } from '../workflows/contract';
import { callAdapter } from './adapter-failure';

export interface ClaimActivityDeps {
  knex: Knex;
  /** The worker's Prometheus metrics; unset: nothing is counted (tests, benchmarks). */
  metrics?: WorkerMetrics;
  log: Logger;
  /** The test environment's claims bank (the simulated bank); unset: test claims stay pending. */
  claimsApi?: ClaimsApi | undefined;
  /** The live environment's claims bank (decision 0177); unset: live claims stay pending. */
  liveClaimsApi?: ClaimsApi | undefined;
  wakeChannels: (channelIds: string[]) => Promise<void>;
  /**
   * Starts or signals the lifecycle workflows of subscriptions a krafa's outcome moves on (paid,
   * cancelled at the bank; decision 0105); unset: they learn it when their wait for it ends.
   */
  notifyLifecycle?: ((refs: ClaimLifecycleRef[]) => Promise<void>) | undefined;
}

export interface ClaimBatchResult {
  done: boolean;
  issued: number;
  failed: number;
}

export interface ClaimSyncResult {
  read: number;
  applied: number;
  /** Claims found cancelled at the bank (by the bank or the payer) and marked cancelled. */
  cancelled: number;
}

function claimEvent(type: string, row: ClaimRow): BatchEvent {
  return { merchantId: row.merchant_id, livemode: row.livemode, type, data: presentClaim(row) };
}

/** Identity of one bank transaction: the claim and the bank's own references to the payment. */
export function transactionKey(claimId: string, tx: ClaimTransaction): string {
  return [
    claimId,
    tx.transactionBatchId ?? '',
    tx.transactionTimestamp ?? '',
    tx.paymentType ?? '',
    String(tx.depositedAmount ?? tx.totalAmountPaid ?? tx.amount ?? ''),
  ].join('|');
}

export function createClaimActivities(deps: ClaimActivityDeps) {
  const { knex } = deps;
  const intents = createPaymentIntentRepository(knex);
  const batches = createClaimBatchRepository(knex);
  const payments = createClaimPaymentRepository(knex);
  /** The claims bank of an environment: live claims go only to the live bank (decision 0177). */
  const api = (livemode: boolean): ClaimsApi => {
    const bank = livemode ? deps.liveClaimsApi : deps.claimsApi;
    if (!bank)
      throw ApplicationFailure.nonRetryable(
        `no ${livemode ? 'live' : 'test'} bank connection is configured for claims`,
        FailureType.NoBankConnection,
      );
    return bank;
  };
  const wake = async (ids: string[]) => {
    if (ids.length > 0) await deps.wakeChannels(ids).catch(() => undefined);
  };
  /**
   * The subscriptions these kröfur's outcomes move on look again. A failed signal is only logged: a
   * retried sync finds nothing new to apply, and the waiting workflow looks again when its wait for
   * the krafa's expiry ends.
   */
  const notifySubscriptions = async (claimIds: string[], by: 'id' | 'bank_claim_id' = 'id') => {
    const refs = await lifecycleRefsOfClaims(knex, claimIds, by);
    if (refs.length === 0 || !deps.notifyLifecycle) return;
    await deps.notifyLifecycle(refs).catch((err: unknown) => {
      deps.log.warn({ err, subscriptions: refs.map((r) => r.subscriptionId) }, 'subscriptions not signalled');
    });
  };

  /** Marks claims issued (by bank claim id) and records claim.created for each, in one transaction. */
  async function markIssued(bankClaimIds: string[]): Promise<number> {
    if (bankClaimIds.length === 0) return 0;
    let channels: string[] = [];
    const rows = await knex.transaction(async (trx) => {
      const updated = await batches.markIssued(bankClaimIds, trx);
      channels = await recordEvents(
        trx,
        updated.map((r) => claimEvent('claim.created', r)),
      );
      return updated;
    });
    await wake(channels);
    return rows.length;
  }

  return {
    /**
     * Takes pending claims of an environment into a batch (at most `limit`), and returns every claim
     * of the batch still waiting to be issued: a retried batch gets the same claims back. Claims left
     * in a batch that stopped for an hour are taken over (the bank answers CLAIM_EXISTS for any it
     * already created).
     */
    async collectClaimBatch(input: {
      livemode: boolean;
      batchKey: string;
      limit: number;
    }): Promise<string[]> {
      return batches.collect(input);
    },

    /**
     * Sends the batch's claims to the bank's batch endpoint. The idempotency identity is the batch and
     * its claims, so a retry of the same send is answered from the bank's record, never acted twice.
     */
    async submitClaimBatch(input: {
      livemode: boolean;
      batchKey: string;
      claimIds: string[];
    }): Promise<string> {
      const rows = await batches.listByIds(input.claimIds);
      const digest = createHash('sha256')
        .update(rows.map((r) => r.id).join(','))
        .digest('hex')
        .slice(0, 16);
      const status = await callAdapter(() =>
        api(input.livemode).createClaimsBatch(rows.map(toCreateClaimDetails), {
          // The batch's workflow id and its claims: the bank keeps idempotency on these bytes.
          idempotencyIdentity: `${claimBatchWorkflowId(input.livemode, input.batchKey)}/${digest}`,
        }),
      );
      if (!status.batchId) throw new Error('the bank answered the batch without a batchId');
      return status.batchId;
    },

    /**
     * Reads the batch at the bank; once nothing is pending, records each claim key (issued) or the
     * bank's error on the claim. CLAIM_EXISTS on a claim number Skil allocated means an earlier send
     * created it: the claim is issued.
     */
    async recordClaimBatch(input: { batchId: string; livemode?: boolean }): Promise<ClaimBatchResult> {
      // Batches started before environments had banks of their own name none: the test bank's.
      const status = await callAdapter(() => api(input.livemode ?? false).getBatch(input.batchId));
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
        await wake(await recordClaimRefusal(knex, f.id, { code: f.code, message: f.message }));
      // A subscription waiting for a refused krafa goes to its end state (decision 0105).
      await notifySubscriptions(
        failures.map((f) => f.id),
        'bank_claim_id',
      );
      deps.metrics?.claims.inc({ outcome: 'issued' }, issued);
      deps.metrics?.claims.inc({ outcome: 'refused' }, failures.length);
      return { done: true, issued, failed: failures.length };
    },

    /**
     * Reads the bank's claim transactions booked in a window around today and applies each one once
     * (unique bank transaction key): payments, partial payments and reversals.
     */
    async syncClaimPayments(input: { today?: string; lookbackDays?: number } = {}): Promise<ClaimSyncResult> {
      const today = input.today ?? new Date().toISOString().slice(0, 10);
      const day = (offset: number) =>
        new Date(Date.parse(`${today}T00:00:00Z`) + offset * 86_400_000).toISOString().slice(0, 10);
      const query = { dateFrom: day(-(input.lookbackDays ?? 35)), dateTo: day(10), itemsPerPage: 100 };
      let read = 0;
      let applied = 0;
      let cancelled = 0;
      const changed: string[] = [];
      // Each environment's claims are read from its own bank (decision 0177); none at all is a failure.
      const environments = [false, true].filter((live) => (live ? deps.liveClaimsApi : deps.claimsApi));
      if (environments.length === 0) api(false);
      for (const livemode of environments) {
        const bank = api(livemode);
        for (let page = 1; ; page++) {
          const res = await callAdapter(() => bank.listClaimTransactions({ ...query, page }));
          for (const tx of res.items) {
            read++;
            const claimId = await applyTransaction(tx, livemode);
            if (claimId === null) continue;
            applied++;
            changed.push(claimId);
          }
          if (page >= res.totalPages || res.items.length === 0) break;
        }
        // Claims cancelled at the bank appear in no transaction: read the status of each unpaid claim
        // due in the window (GET claim, `claimStatus: Cancelled`).
        const unpaid = await payments.listUnpaidDueSince(query.dateFrom, livemode);
        for (const c of unpaid) {
          // A claim the bank does not know (404) is left as it is.
          const details = await callAdapter(() =>
            bank.getClaim(c.bank_claim_id).catch((err: unknown) => {
              if (err instanceof BankError && err.status === 404) return null;
              throw err;
            }),
          );
          if (details?.claimStatus === 'Cancelled' && (await payments.markCancelledAtBank(c.id))) {
            cancelled++;
            changed.push(c.id);
          }
        }
      }
      await notifySubscriptions(changed);
      deps.metrics?.claimPayments.inc(applied);
      return { read, applied, cancelled };
    },
  };

  /** Applies one bank transaction to its claim: the claim's id, or null when already applied or not Skil's. */
  async function applyTransaction(tx: ClaimTransaction, livemode: boolean): Promise<string | null> {
    if (!tx.claimKey) return null;
    const bankClaimId = claimIdOf(tx.claimKey);
    const channels: string[] = [];
    const applied = await knex.transaction(async (trx) => {
      const claim = await payments.lockByBankClaimId(bankClaimId, livemode, trx);
      if (!claim) return null;
      const paid = Number(tx.totalAmountPaid ?? tx.depositedAmount ?? 0);
      const recorded = await payments.recordTransaction(
        {
          claimId: claim.id,
          bankTransactionKey: transactionKey(bankClaimId, tx),
          paymentType: tx.paymentType ?? 'Complete',
          amount: tx.paymentType === 'Refund' ? -Math.abs(paid) : paid,
          data: tx,
        },
        trx,
      );
      if (!recorded) return null;
      const scope = { merchantId: claim.merchant_id, livemode: claim.livemode };
      const now = new Date();
      const events: BatchEvent[] = [];
      let patch: Partial<ClaimRow>;
      if (tx.paymentType === 'Refund') {
        // A reversal: the claim is unpaid again (partly, if earlier payments remain).
        const remaining = Math.max(0, Number(claim.amount_paid) - Math.abs(paid));
        patch = {
          amount_paid: remaining,
          status: remaining > 0 ? 'partially_paid' : 'issued',
          paid_at: null,
        };
      } else if (tx.paymentType === 'Partial') {
        patch = { amount_paid: Number(claim.amount_paid) + paid, status: 'partially_paid' };
      } else {
        const total = Number(claim.amount_paid) + paid;
        patch = { amount_paid: total, status: 'paid', paid_at: now };
        if (claim.payment_intent_id === null && total > 0) {
          const created = await intents.create(
            scope,
            {
              amount: total,
              captureMethod: 'automatic',
              customerId: claim.customer_id,
              description: `Claim ${claim.claim_number}`,
              metadata: {
                claim: claim.id,
                ...(claim.checkout_session_id && { checkout_session: claim.checkout_session_id }),
              },
            },
            trx,
          );
          const intent = await intents.update(
            created.id,
            {
              status: 'succeeded',
              amount_captured: total,
              fee_amount: claimFee(Number(claim.amount)),
              captured_at: now,
            },
            trx,
          );
          patch.payment_intent_id = intent.id;
          events.push({
            merchantId: claim.merchant_id,
            livemode: claim.livemode,
            type: 'payment_intent.captured',
            data: presentPaymentIntent(intent),
          });
        }
      }
      const row = await payments.update(claim.id, { ...patch, updated_at: now }, trx);
      if (row.status === 'paid' && claim.status !== 'paid') events.unshift(claimEvent('claim.paid', row));
      // The subscription renewal the claim collects is paid with the claim's intent (0064).
      if (claim.renewal_id && row.status === 'paid')
        await payments.payRenewal(claim.renewal_id, row.payment_intent_id, now, trx);
      // The checkout session the claim pays follows it: paid, or unpaid again on a reversal (0063).
      if (claim.checkout_session_id) {
        if (row.status === 'paid')
          await payments.markSessionPaid(claim.checkout_session_id, row.payment_intent_id, now, trx);
        else if (claim.status === 'paid') await claimSessionUnpaid(trx, claim.checkout_session_id);
      }
      channels.push(...(await recordEvents(trx, events)));
      return claim.id;
    });
    await wake(channels);
    return applied;
  }
}

export type ClaimActivities = ReturnType<typeof createClaimActivities>;
