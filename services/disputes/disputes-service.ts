import type { Knex } from '../../db/knex';
import type { Scope } from '../../domain/scope';
import type { WebhookDispatcher } from '../../engine/webhook-dispatch';
import {
  AcquirerInvalidRequestError,
  type CardAcquirer,
  type DisputeEvidence,
} from '../../adapters/acquirers/card-acquirer';
import { createDisputeRepository, type DisputeRow } from '../../db/disputes';
import { createPaymentIntentRepository } from '../../db/payment-intents';
import { createEventRepository } from '../../db/events';
import { disputeEventOf } from '../../domain/disputes';
import { InvalidRequestError } from '../../domain/errors';
import { findOr404, findReference, type PageOptions } from '../lookup';
import { presentDispute } from './dispute-object';

/** Records a dispute event in the change's transaction; the channels to wake go to `wake`. */
export async function recordDisputeEvent(
  trx: Knex.Transaction,
  type: 'dispute.created' | 'dispute.updated' | 'dispute.closed',
  row: DisputeRow,
  wake: string[],
): Promise<void> {
  const recorded = await createEventRepository(trx).record(
    { merchantId: row.merchant_id, livemode: row.livemode },
    { type, data: presentDispute(row) },
    trx,
  );
  wake.push(...recorded.channelIds);
}

/**
 * Card disputes as the merchant sees them (decision 0156): list and retrieve, evidence sent on to
 * the acquirer before the deadline, or the dispute accepted. The acquirer's side of a dispute
 * (opened, decided) arrives as notifications (services/disputes/dispute-notifications.ts).
 */
export function createDisputeService(deps: {
  knex: Knex;
  acquirer: CardAcquirer;
  dispatcher: WebhookDispatcher;
}) {
  const disputes = createDisputeRepository(deps.knex);
  const intents = createPaymentIntentRepository(deps.knex);

  const disputeOr404 = (scope: Scope, id: string) =>
    findOr404(
      'dispute',
      scope,
      id,
      () => disputes.findById(scope, id),
      () => disputes.existsInOtherMode(scope, id),
    );

  /** Runs `work` on the locked dispute in one transaction, then wakes the channels of its events. */
  async function onLocked(
    scope: Scope,
    id: string,
    work: (row: DisputeRow, trx: Knex.Transaction, wake: string[]) => Promise<DisputeRow>,
  ) {
    await disputeOr404(scope, id);
    const wake: string[] = [];
    const row = await deps.knex.transaction(async (trx) =>
      work((await disputes.lock(scope, id, trx))!, trx, wake),
    );
    await deps.dispatcher.wake(wake);
    return presentDispute(row);
  }

  /** The acquirer's refusal of evidence or acceptance as the API's 400 on `param`. */
  function refused(err: unknown, param: string): never {
    if (err instanceof AcquirerInvalidRequestError)
      throw new InvalidRequestError(`The acquirer refused: ${err.message}`, {
        code: `dispute_${err.code}`,
        param,
      });
    throw err;
  }

  return {
    async list(scope: Scope, opts: PageOptions & { paymentIntentId?: string }) {
      const pi = opts.paymentIntentId;
      if (pi !== undefined)
        await findReference('payment_intent', pi, 'payment_intent', () => intents.findById(scope, pi));
      const page = await disputes.list(scope, opts);
      return { data: page.data.map((r) => presentDispute(r)), hasMore: page.hasMore };
    },

    retrieve: async (scope: Scope, id: string) => presentDispute(await disputeOr404(scope, id)),

    /** The disputes of one payment, for its dashboard page. */
    async ofPaymentIntent(scope: Scope, paymentIntentId: string) {
      return (await disputes.ofPaymentIntent(scope, paymentIntentId)).map((r) => presentDispute(r));
    },

    /**
     * Sends the merchant's evidence to the acquirer and puts the dispute under review. Only while it
     * needs a response and before its deadline; the row is locked, so two submissions queue and the
     * second finds it under review.
     */
    submitEvidence(scope: Scope, id: string, evidence: DisputeEvidence) {
      return onLocked(scope, id, async (row, trx, wake) => {
        if (row.status !== 'needs_response')
          throw new InvalidRequestError(`This dispute is ${row.status}; it takes no more evidence`, {
            code: 'dispute_not_open',
            param: 'evidence',
          });
        if (row.evidence_due_by.getTime() <= Date.now())
          throw new InvalidRequestError(
            `The evidence deadline of this dispute passed at ${row.evidence_due_by.toISOString()}`,
            { code: 'dispute_evidence_past_due', param: 'evidence' },
          );
        const count = row.submission_count + 1;
        await deps.acquirer
          .submitDisputeEvidence({
            dispute: row.acquirer_reference,
            evidence,
            idempotency_key: `${row.id}:evidence:${count}`,
          })
          .catch((err: unknown) => refused(err, 'evidence'));
        const moved = (await disputes.move(
          row.id,
          'under_review',
          { evidence, evidence_submitted_at: new Date(), submission_count: count },
          trx,
        ))!;
        await recordDisputeEvent(trx, 'dispute.updated', moved, wake);
        return moved;
      });
    },

    /** Accepts the dispute (Stripe's close): it is lost, the withdrawn amount stays withdrawn. */
    close(scope: Scope, id: string) {
      return onLocked(scope, id, async (row, trx, wake) => {
        if (row.status === 'lost') return row;
        if (row.status !== 'needs_response')
          throw new InvalidRequestError(`This dispute is ${row.status} and cannot be accepted`, {
            code: 'dispute_not_open',
            param: 'id',
          });
        await deps.acquirer
          .acceptDispute(row.acquirer_reference, `${row.id}:accept`)
          .catch((err: unknown) => refused(err, 'id'));
        const moved = (await disputes.move(row.id, 'lost', { closed_at: new Date() }, trx))!;
        await recordDisputeEvent(trx, disputeEventOf('lost'), moved, wake);
        return moved;
      });
    },
  };
}

export type DisputeService = ReturnType<typeof createDisputeService>;
