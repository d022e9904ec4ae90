import type { Knex } from '../../db/knex';
import type { Scope } from '../../domain/scope';
import type { CardAcquirer } from '../../adapters/acquirers/card-acquirer';
import type { WebhookDispatcher } from '../../engine/webhook-dispatch';
import type { PageOptions } from '../../db/tenant';
import {
  createPaymentIntentRepository,
  type PaymentIntentRow,
  type RefundRow,
} from '../../db/payment-intents';
import { findClaimRefundDestination } from '../../db/claim-refunds';
import { newId, ID_PREFIX } from '../../domain/ids';
import { ConflictError, InvalidRequestError } from '../../domain/errors';
import { findOr404, findReference } from '../lookup';
import { createPaymentIntentEvents } from './payment-intent-events';
import { presentRefund } from './refund-object';
import { issueCreditNote } from '../invoices/issue';

export interface RefundInput {
  amount?: number | undefined;
  reason?: RefundRow['reason'] | undefined;
  /** The request's Idempotency-Key: a repeated key returns the first refund. */
  idempotencyKey?: string | undefined;
  /**
   * Runs in the refund's transaction once the amount is known, before the acquirer is asked; a
   * throw refuses the refund and rolls back what it wrote (the MCP tools' per-key limits, 0122).
   */
  withinLimits?: ((trx: Knex.Transaction, amount: number) => Promise<void>) | undefined;
}

/** What a refund of `requested` (all that is left, when unset) would refund, or why it cannot. */
function refundableAmount(intent: PaymentIntentRow, requested: number | undefined) {
  if (intent.status !== 'succeeded')
    throw new ConflictError(
      `This PaymentIntent cannot be refunded because it has a status of ${intent.status}`,
      'payment_intent_unexpected_state',
      'payment_intent',
    );
  const remaining = intent.amount_captured - intent.amount_refunded;
  if (remaining === 0)
    throw new ConflictError(
      'This payment has already been refunded in full',
      'charge_already_refunded',
      'payment_intent',
    );
  const amount = requested ?? remaining;
  if (amount > remaining)
    throw new InvalidRequestError(
      `Refund amount (${amount} ISK) is greater than the unrefunded amount (${remaining} ISK)`,
      { code: 'amount_too_large', param: 'amount' },
    );
  return { amount, remaining };
}

const noSuchIntent = (intentId: string) =>
  new InvalidRequestError(`No such payment_intent: '${intentId}'`, {
    code: 'resource_missing',
    param: 'payment_intent',
  });

/**
 * Refunds of captured payments, never more than was captured: a card payment's through the acquirer
 * (succeeded at once), a krafa's to the payer's bank account through settlement (pending until the
 * bank books the transfer, decision 0101).
 */
export function createRefundService(deps: {
  knex: Knex;
  acquirer: CardAcquirer;
  dispatcher: WebhookDispatcher;
}) {
  const intents = createPaymentIntentRepository(deps.knex);
  const { emit } = createPaymentIntentEvents(deps.knex);

  /**
   * Refunds part or all of a captured payment. The intent row is locked, so concurrent refunds
   * queue; the remaining amount is checked under the lock and a CHECK constraint backs it. A
   * repeated idempotency key returns the first refund.
   */
  async function refundLocked(
    scope: Scope,
    intentId: string,
    input: RefundInput,
    trx: Knex.Transaction,
    wake: string[],
  ): Promise<RefundRow> {
    const intent = await intents.lock(scope, intentId, trx);
    if (!intent) throw noSuchIntent(intentId);
    if (input.idempotencyKey !== undefined) {
      const existing = await intents.findRefundByKey(intent.id, input.idempotencyKey, trx);
      if (existing) return existing;
    }
    const { amount } = refundableAmount(intent, input.amount);
    await input.withinLimits?.(trx, amount);
    const id = newId(ID_PREFIX.refund);
    const key = input.idempotencyKey ?? id;
    const base = {
      id,
      merchant_id: scope.merchantId,
      livemode: scope.livemode,
      payment_intent_id: intent.id,
      amount,
      reason: input.reason ?? null,
      idempotency_key: key,
    };
    let refund: RefundRow;
    if (intent.acquirer_authorization !== null) {
      const done = await deps.acquirer.refund({
        authorization: intent.acquirer_authorization,
        amount,
        idempotency_key: `${intent.id}:refund:${key}`,
      });
      refund = await intents.insertRefund(
        { ...base, status: 'succeeded', acquirer_reference: done.id, succeeded_at: new Date() },
        trx,
      );
    } else {
      // A krafa paid at the bank: no card to refund to. The money goes back to the payer's account
      // in the merchant's next payout file, netted in that settlement run (decision 0101).
      const claim = await findClaimRefundDestination(trx, scope, intent.id);
      if (!claim)
        throw new ConflictError(
          'This payment has neither a card authorization nor a bank claim to refund through',
          'payment_intent_unexpected_state',
          'payment_intent',
        );
      refund = await intents.insertRefund(
        {
          ...base,
          status: 'pending',
          acquirer_reference: null,
          destination_account: claim.account,
          destination_kennitala: claim.kennitala,
          destination_name: claim.name,
        },
        trx,
      );
    }
    const row = await intents.update(intent.id, { amount_refunded: intent.amount_refunded + amount }, trx);
    await emit(scope, 'payment_intent.refunded', row, trx, wake, { refund: presentRefund(refund) });
    wake.push(...(await issueCreditNote(trx, refund)));
    return refund;
  }

  /** Refunds in one transaction, then wakes the webhook channels of the refund event. */
  async function refund(scope: Scope, intentId: string, input: RefundInput) {
    const wake: string[] = [];
    const row = await deps.knex.transaction((trx) =>
      refundLocked(
        scope,
        intentId,
        {
          ...(input.amount !== undefined && { amount: input.amount }),
          ...(input.reason && { reason: input.reason }),
          ...(input.idempotencyKey !== undefined && { idempotencyKey: input.idempotencyKey }),
          withinLimits: input.withinLimits,
        },
        trx,
        wake,
      ),
    );
    await deps.dispatcher.wake(wake);
    return presentRefund(row);
  }

  return {
    /** A refund of the payment intent named in the body: an unknown one is a 400 resource_missing. */
    create: refund,

    /** A refund of the payment intent in the path: an unknown one is a 404. */
    async refundPaymentIntent(scope: Scope, intentId: string, input: RefundInput) {
      await findOr404(
        'payment_intent',
        scope,
        intentId,
        () => intents.findById(scope, intentId),
        () => intents.existsInOtherMode(scope, intentId),
      );
      return refund(scope, intentId, input);
    },

    /**
     * What a refund would do, changing nothing: the amount it would refund and what is left to
     * refund, or the error the refund itself would answer (dry runs and confirmation previews).
     */
    async preview(scope: Scope, intentId: string, input: { amount?: number | undefined }) {
      const intent = await intents.findById(scope, intentId);
      if (!intent) throw noSuchIntent(intentId);
      const { amount, remaining } = refundableAmount(intent, input.amount);
      return { payment_intent: intent.id, amount, amount_refundable: remaining, currency: 'ISK' as const };
    },

    /** The refunds of each of these payment intents, oldest first, in one query. */
    async ofPaymentIntents(scope: Scope, intentIds: readonly string[]) {
      const rows = await intents.refundsOfIntents(scope, intentIds);
      const byIntent = new Map<string, ReturnType<typeof presentRefund>[]>();
      for (const row of rows) {
        const list = byIntent.get(row.payment_intent_id) ?? [];
        list.push(presentRefund(row));
        byIntent.set(row.payment_intent_id, list);
      }
      return byIntent;
    },

    async list(scope: Scope, opts: PageOptions & { paymentIntentId?: string }) {
      const { paymentIntentId: pi } = opts;
      if (pi !== undefined)
        await findReference('payment_intent', pi, 'payment_intent', () => intents.findById(scope, pi));
      const page = await intents.listRefunds(scope, opts);
      return { data: page.data.map(presentRefund), hasMore: page.hasMore };
    },

    async retrieve(scope: Scope, id: string) {
      return presentRefund(
        await findOr404(
          'refund',
          scope,
          id,
          () => intents.findRefund(scope, id),
          () => Promise.resolve(false),
        ),
      );
    },
  };
}

export type RefundService = ReturnType<typeof createRefundService>;
