import type { CardAcquirer } from '../../adapters/acquirers/card-acquirer';
import { AcquirerError, reportedFee } from '../../adapters/acquirers/card-acquirer';
import { cardFee } from '../../domain/fees';
import type { PendingRenewal, RenewalOutcome } from '../../db/renewals';

/** A charge's outcome and the fee the acquirer reported on its capture (decision 0113). */
export type ChargedRenewal = RenewalOutcome & { acquirerFee: number | null };

/** Renewal idempotency key of the architecture: `{sub_id}:{period_start}`. */
export function renewalKey(subscriptionId: string, periodStart: Date): string {
  return `${subscriptionId}:${periodStart.toISOString()}`;
}

/**
 * The card step of a page: one authorization and capture per pending renewal, at most
 * `concurrency` in flight. `onProgress` hears the count every 50 (the activity heartbeats it).
 */
export function createCardCharges(deps: { acquirer: CardAcquirer; concurrency: number }) {
  /** One authorization and capture, keyed by business identity and the dunning attempt number. */
  async function chargeOne(r: PendingRenewal): Promise<ChargedRenewal> {
    const failed = (code: string, decline: string | null, message: string): ChargedRenewal => ({
      id: r.id,
      status: 'failed',
      authorization: null,
      error: { code, decline_code: decline, message },
      fee: null,
      acquirerFee: null,
    });
    if (r.amount === 0)
      return { id: r.id, status: 'paid', authorization: null, error: null, fee: 0, acquirerFee: null };
    if (r.collection_method === 'claim')
      return {
        id: r.id,
        status: 'awaiting_claim',
        authorization: null,
        error: null,
        fee: null,
        acquirerFee: null,
      };
    if (r.acquirer_token === null)
      return failed('payment_method_missing', null, 'The subscription has no usable payment method');
    const key = `${renewalKey(r.subscription_id, r.period_start)}:${r.attempt_count}`;
    try {
      const auth = await deps.acquirer.authorize({
        token: r.acquirer_token,
        amount: r.amount,
        currency: 'ISK',
        merchant: r.merchant_id,
        return_url: 'https://invalid.example/off-session',
        idempotency_key: key,
      });
      if (auth.status === 'declined')
        return failed('card_declined', auth.decline_code, 'The card was declined');
      if (auth.status === 'requires_action') {
        await deps.acquirer.void(auth.id, `${key}:void`);
        return failed('authentication_required', null, 'The card requires authentication, off session');
      }
      const captured = await deps.acquirer.capture({
        authorization: auth.id,
        amount: r.amount,
        idempotency_key: `${key}:capture`,
      });
      return {
        id: r.id,
        status: 'paid',
        authorization: captured.id,
        error: null,
        fee: cardFee(r.amount, 'online'),
        acquirerFee: reportedFee(captured),
      };
    } catch (err) {
      // A refusal (the acquirer says asking again cannot help) is an outcome; an outage is thrown so
      // Temporal retries the page with the same keys.
      if (err instanceof AcquirerError && !err.retryable) return failed(err.code, null, err.message);
      throw err;
    }
  }

  return async function chargeAll(
    pending: PendingRenewal[],
    onProgress: (charged: number) => void,
  ): Promise<ChargedRenewal[]> {
    const out: ChargedRenewal[] = [];
    let next = 0;
    const lane = async () => {
      while (next < pending.length) {
        const r = pending[next++]!;
        out.push(await chargeOne(r));
        if (out.length % 50 === 0) onProgress(out.length);
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, Math.min(deps.concurrency, pending.length)) }, lane));
    return out;
  };
}
