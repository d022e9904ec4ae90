import type { Knex } from '../../db/knex';
import type { WebhookDispatcher } from '../../engine/webhook-dispatch';
import {
  AcquirerSignatureError,
  type CardAcquirer,
  type DisputeNotification,
} from '../../adapters/acquirers/card-acquirer';
import { createDisputeRepository } from '../../db/disputes';
import { disputeEventOf, disputeMoves, isClosed } from '../../domain/disputes';
import { ApiError } from '../../domain/errors';
import { newId, ID_PREFIX } from '../../domain/ids';
import { recordDisputeEvent } from './disputes-service';
import { NOTIFICATION_SIGNATURE_HEADER } from '../../adapters/acquirers/acquirer-notifications';

/** What Skil answers the acquirer: taken (2xx), or a status the acquirer retries on. */
export interface NotificationResult {
  received: true;
  dispute: string;
  duplicate: boolean;
}

/**
 * The acquirer's dispute notifications (decision 0155), received at `/acquirer/notifications`:
 * signature checked through the CardAcquirer, then applied once. The payment is found by the
 * acquirer's authorization and locked, so copies of one notification arriving at once queue on it;
 * the dispute is inserted once by the acquirer's dispute id (unique), and a later state moves it
 * forward only, so a copy, a late or an out-of-order notification changes nothing.
 */
export function createDisputeNotifications(deps: {
  knex: Knex;
  acquirer: CardAcquirer;
  dispatcher: WebhookDispatcher;
}) {
  const disputes = createDisputeRepository(deps.knex);

  async function apply(n: DisputeNotification, wake: string[]): Promise<NotificationResult> {
    return deps.knex.transaction(async (trx) => {
      const intent = await disputes.lockPaymentOfAuthorization(n.dispute.authorization, trx);
      // The payment's own transaction may not have committed yet: 409 makes the acquirer retry.
      if (!intent)
        throw new ApiError(
          409,
          'invalid_request_error',
          'No payment of that authorization (yet)',
          'resource_missing',
        );
      const closed = isClosed(n.dispute.status);
      const inserted = await disputes.insertOnce(
        {
          id: newId(ID_PREFIX.dispute),
          merchant_id: intent.merchant_id,
          livemode: intent.livemode,
          payment_intent_id: intent.id,
          acquirer_reference: n.dispute.id,
          amount: n.dispute.amount,
          reason: n.dispute.reason,
          status: n.dispute.status,
          evidence_due_by: new Date(n.dispute.evidence_due_by),
          closed_at: closed ? new Date() : null,
        },
        trx,
      );
      if (inserted) {
        await disputes.markPaymentDisputed(intent.id, inserted.id, trx);
        await recordDisputeEvent(trx, 'dispute.created', inserted, wake);
        if (closed) await recordDisputeEvent(trx, 'dispute.closed', inserted, wake);
        return { received: true, dispute: inserted.id, duplicate: false };
      }
      const existing = (await disputes.findByAcquirerReference(n.dispute.id, trx))!;
      if (!disputeMoves(existing.status, n.dispute.status))
        return { received: true, dispute: existing.id, duplicate: true };
      // The merchant's own evidence or acceptance may hold the row and move it first (the acquirer
      // notifies before that transaction commits): then this notification has nothing left to do.
      const moved = await disputes.move(
        existing.id,
        n.dispute.status,
        closed ? { closed_at: new Date() } : {},
        trx,
      );
      if (!moved) return { received: true, dispute: existing.id, duplicate: true };
      await recordDisputeEvent(trx, disputeEventOf(n.dispute.status), moved, wake);
      return { received: true, dispute: moved.id, duplicate: false };
    });
  }

  return {
    /** Verifies and applies one notification; a bad signature is a 401. */
    async receive(
      body: Buffer,
      headers: Record<string, string | string[] | undefined>,
    ): Promise<NotificationResult> {
      const header = headers[NOTIFICATION_SIGNATURE_HEADER];
      const signature = typeof header === 'string' ? header : undefined;
      let n: DisputeNotification;
      try {
        n = deps.acquirer.parseNotification(body, signature);
      } catch (err) {
        if (err instanceof AcquirerSignatureError)
          throw new ApiError(401, 'authentication_error', err.message, 'invalid_signature');
        throw err;
      }
      const wake: string[] = [];
      const result = await apply(n, wake);
      await deps.dispatcher.wake(wake);
      return result;
    },
  };
}

export type DisputeNotifications = ReturnType<typeof createDisputeNotifications>;
