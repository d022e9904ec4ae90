import type { Knex } from '../../db/knex';
import type { ClaimTransaction } from '../../adapters/banks/claims-api';
import { claimIdOf } from '../../adapters/banks/claims-api';
import { claimSessionUnpaid, type ClaimRow } from '../../db/claims';
import { createClaimPaymentRepository } from '../../db/claim-payments';
import { recordEvents, type BatchEvent } from '../../db/event-batch';
import { createPaymentIntentRepository } from '../../db/payment-intents';
import { claimFee } from '../../domain/fees';
import { presentPaymentIntent } from '../payments/payment-intent-object';
import { createInvoiceRepository } from '../../db/invoices';
import { createInvoiceDeliveryRepository } from '../../db/invoice-deliveries';
import { presentInvoice } from '../invoices/invoice-object';
import { claimEvent, type ClaimOutcomeNotices } from './claim-outcome-notices';
import { stopCollection } from '../../db/collection';

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

/**
 * Applies one bank transaction to its claim, once (unique bank transaction key), in one
 * transaction: a payment, a partial payment or a reversal, with what a paid claim settles (its
 * payment intent, its renewal, its checkout session) and the events. The claim's id, or null when
 * already applied or not Skil's.
 */
export function createClaimTransactionApplier(deps: {
  knex: Knex;
  notices: Pick<ClaimOutcomeNotices, 'wake'>;
}) {
  const { knex } = deps;
  const intents = createPaymentIntentRepository(knex);
  const payments = createClaimPaymentRepository(knex);
  const invoices = createInvoiceRepository(knex);
  const deliveries = createInvoiceDeliveryRepository(knex);

  return async function applyTransaction(tx: ClaimTransaction, livemode: boolean): Promise<string | null> {
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
      // A payment, full or partial, stops the krafa's collection steps; a step taken after the day the
      // payer paid at the bank is withdrawn with its cost, even when the sync reports the payment
      // after the step (decision 0246).
      if (tx.paymentType !== 'Refund') await stopCollection(trx, claim.id, tx.valueDate ?? null, 'stopped');
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
      // Its invoice follows it: paid with the claim's intent, or open again on a reversal (0211).
      if (row.status === 'paid' || claim.status === 'paid') {
        const invoice = await invoices.followClaim(
          trx,
          claim.id,
          row.status === 'paid'
            ? { status: 'paid', paymentIntentId: row.payment_intent_id }
            : { status: 'open' },
        );
        if (invoice?.status === 'paid')
          events.push({
            merchantId: invoice.merchant_id,
            livemode: invoice.livemode,
            type: 'invoice.paid',
            data: presentInvoice(invoice, await deliveries.find(scope, invoice.id, trx)),
          });
      }
      channels.push(...(await recordEvents(trx, events)));
      return claim.id;
    });
    await deps.notices.wake(channels);
    return applied;
  };
}
