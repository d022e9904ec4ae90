import type { Knex } from '../../db/knex';
import { createClaimBatchRepository } from '../../db/claim-batches';
import { createClaimRepository } from '../../db/claims';
import { recordEvents, type BatchEvent } from '../../db/event-batch';
import { createPaymentIntentRepository } from '../../db/payment-intents';
import { releaseRefusedClaimSession } from '../checkout/claim-refusal';
import { presentPaymentIntent } from '../payments/payment-intent-object';
import { presentClaim } from './claim-object';

/**
 * The bank refused a claim at issuance (decision 0103). In one transaction, once per refusal (a
 * retried read of the batch result finds it recorded and does nothing): the bank's error goes on
 * the claim and `claim.failed` is emitted. A checkout krafa is also closed: its session becomes
 * `unpaid` with what the completion took given back, the attempt is a failed payment intent
 * (`payment_intent.failed`), and the claim is cancelled so no later batch sends it. Other claims
 * stay pending with the error until the merchant mends them. Returns the channels to wake.
 */
export async function recordClaimRefusal(
  knex: Knex,
  bankClaimId: string,
  error: { code: string | null; message: string },
): Promise<string[]> {
  return knex.transaction(async (trx) => {
    const refused = await createClaimBatchRepository(trx).recordBankError(bankClaimId, error, trx);
    if (!refused) return [];
    const scope = { merchantId: refused.merchant_id, livemode: refused.livemode };
    const events: BatchEvent[] = [];
    let claim = refused;
    if (
      claim.checkout_session_id &&
      (await releaseRefusedClaimSession(trx, scope, claim.checkout_session_id))
    ) {
      const intents = createPaymentIntentRepository(trx);
      const created = await intents.create(
        scope,
        {
          amount: Number(claim.amount),
          captureMethod: 'automatic',
          customerId: claim.customer_id,
          description: `Claim ${claim.claim_number}`,
          metadata: { claim: claim.id, checkout_session: claim.checkout_session_id },
        },
        trx,
      );
      const intent = await intents.update(
        created.id,
        {
          last_payment_error: {
            code: 'claim_refused',
            decline_code: error.code?.toLowerCase() ?? null,
            message: error.message,
          },
        },
        trx,
      );
      claim = (await createClaimRepository(trx).closeRefused(scope, claim.id, intent.id, trx)) ?? claim;
      events.push({ ...scope, type: 'payment_intent.failed', data: presentPaymentIntent(intent) });
    }
    events.unshift({ ...scope, type: 'claim.failed', data: presentClaim(claim) });
    return recordEvents(trx, events);
  });
}
