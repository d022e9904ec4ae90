import type { Knex } from '../../db/knex';
import type { Logger } from '../../stack/logger';
import type { Collector, CollectorPayment } from '../../adapters/collectors/collector';
import type { ClaimTransaction } from '../../adapters/banks/claims-api';
import { parseClaimId } from '../../adapters/banks/claims-api';
import { ClaimRejectedError } from '../../adapters/banks/claims-errors';
import { closeCollection, collectionClaim, lastCollectorPaymentId } from '../../db/collection';
import { claimsBankFor, type ClaimsBanks } from '../claims/claims-bank';

/** Each environment's collector (decision 0248): test mode's is the simulated one. */
export interface Collectors {
  test?: Collector | undefined;
  live?: Collector | undefined;
}

export const collectorFor = (c: Collectors, livemode: boolean): Collector | undefined =>
  livemode ? c.live : c.test;

/**
 * Payments the collector received on handed-off kröfur, read back by polling (decision 0248) and
 * applied as the krafa's payment, once each (the claim transaction's unique key carries the
 * collector's payment id): a payment covering the principal still owed pays the krafa, closes its
 * collection and cancels it at the bank (the payer must not see it there as unpaid, nor pay it
 * twice); a smaller one is a partial payment and the collector goes on. The collector's interest
 * and costs are its settlement with the claimant, not Skil's to book.
 */
export function createCollectorPayments(
  deps: ClaimsBanks & {
    knex: Knex;
    log: Logger;
    collectors: Collectors;
    /** The bank sync's applier (services/claims/claim-transaction.ts): payment, intent, invoice, events. */
    applyTransaction: (tx: ClaimTransaction, livemode: boolean) => Promise<string | null>;
  },
) {
  async function apply(p: CollectorPayment, livemode: boolean): Promise<string | null> {
    const claim = await collectionClaim(deps.knex, p.reference, livemode);
    const key = claim?.bank_claim_id ? parseClaimId(claim.bank_claim_id) : null;
    if (!claim || !key || claim.collection_state === null) {
      deps.log.warn({ payment: p.id, reference: p.reference }, 'collector payment for no handed-off krafa');
      return null;
    }
    const full = p.amount >= claim.amount - claim.amount_paid;
    if (full) {
      // First at the bank, then in Skil: a cancel repeated after a crash is refused as already done.
      try {
        await claimsBankFor(deps, livemode).cancelClaim(claim.bank_claim_id, {
          idempotencyIdentity: `${claim.id}:collector-paid`,
        });
      } catch (err) {
        if (
          !(err instanceof ClaimRejectedError) ||
          !['CLAIM_IS_CANCELLED', 'CLAIM_IS_PAID'].includes(err.resultCode)
        )
          throw err;
      }
    }
    const applied = await deps.applyTransaction(
      {
        claimKey: key,
        paymentType: full ? 'Complete' : 'Partial',
        totalAmountPaid: p.amount,
        valueDate: p.paid_on,
        transactionBatchId: `collector:${p.id}`,
      },
      livemode,
    );
    if (full) await closeCollection(deps.knex, claim.id);
    return applied;
  }

  return {
    /**
     * Reads each environment's collector from its last recorded payment on: how many payments were
     * read, and the kröfur of those applied now.
     */
    async sync(): Promise<{ read: number; applied: string[] }> {
      let read = 0;
      const applied: string[] = [];
      for (const livemode of [false, true]) {
        const collector = collectorFor(deps.collectors, livemode);
        if (!collector) continue;
        const payments = await collector.payments(await lastCollectorPaymentId(deps.knex, livemode));
        read += payments.length;
        for (const p of payments) {
          const id = await apply(p, livemode);
          if (id !== null) applied.push(id);
        }
      }
      return { read, applied };
    },
  };
}

export type CollectorPayments = ReturnType<typeof createCollectorPayments>;
