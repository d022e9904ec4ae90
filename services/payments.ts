import type { Knex } from '../db/knex';
import type { Scope } from '../domain/scope';
import type { Authorization, CardAcquirer } from '../bank-adapters/card-acquirer';
import { AcquirerCardError, AcquirerError } from '../bank-adapters/card-acquirer';
import {
  createPaymentIntentRepository,
  type PaymentError,
  type PaymentIntentRow,
  type RefundRow,
} from '../db/payment-intents';
import { createPaymentMethodRepository, type PaymentMethodRow } from '../db/payment-methods';
import { createEventRepository } from '../db/events';
import { newId, ID_PREFIX } from '../domain/ids';
import { cardFee } from '../domain/fees';
import { ConflictError, InvalidRequestError, ServiceUnavailableError } from '../domain/errors';
import { unix } from '../domain/unix-time';

/** Decline messages shown to buyers and returned in last_payment_error. */
export const DECLINE_MESSAGES: Record<string, string> = {
  generic_decline: 'Your card was declined.',
  insufficient_funds: 'Your card has insufficient funds.',
  expired_card: 'Your card has expired.',
  incorrect_cvc: "Your card's security code is incorrect.",
  authentication_failed: 'The card could not be authenticated (3-D Secure).',
  incorrect_number: 'Your card number is incorrect.',
  invalid_expiry: "Your card's expiration date is invalid.",
  invalid_cvc: "Your card's security code is invalid.",
  processing_error: 'An error occurred while processing your card. Try again.',
};

export function presentPaymentIntent(row: PaymentIntentRow, pm?: PaymentMethodRow | null) {
  return {
    id: row.id,
    object: 'payment_intent' as const,
    livemode: row.livemode,
    amount: row.amount,
    amount_capturable: row.status === 'requires_capture' ? row.amount : 0,
    amount_received: row.amount_captured,
    amount_refunded: row.amount_refunded,
    currency: row.currency,
    status: row.status,
    capture_method: row.capture_method,
    customer: row.customer_id,
    payment_method: row.payment_method_id,
    payment_method_details: pm
      ? {
          type: 'card' as const,
          card: {
            brand: pm.card_brand,
            last4: pm.card_last4,
            exp_month: pm.card_exp_month,
            exp_year: pm.card_exp_year,
            wallet: pm.wallet,
          },
        }
      : null,
    checkout_session: row.checkout_session_id,
    description: row.description,
    fee_amount: row.fee_amount,
    net_amount: row.fee_amount === null ? null : row.amount_captured - row.fee_amount,
    last_payment_error: row.last_payment_error,
    next_action:
      row.status === 'requires_action' && row.next_action_url
        ? {
            type: 'redirect_to_url' as const,
            redirect_to_url: { url: row.next_action_url, return_url: row.return_url },
          }
        : null,
    canceled_at: unix(row.canceled_at),
    cancellation_reason: row.cancellation_reason,
    created_at: unix(row.created_at),
    metadata: row.metadata,
  };
}

export function presentRefund(row: RefundRow) {
  return {
    id: row.id,
    object: 'refund' as const,
    livemode: row.livemode,
    payment_intent: row.payment_intent_id,
    amount: row.amount,
    currency: row.currency,
    status: row.status,
    reason: row.reason,
    created_at: unix(row.created_at),
  };
}

/** What an authorization attempt came to, for the caller (the API or the checkout page). */
export type AttemptOutcome =
  | { kind: 'authorized'; intent: PaymentIntentRow }
  | { kind: 'requires_action'; intent: PaymentIntentRow; url: string }
  | { kind: 'declined'; intent: PaymentIntentRow; error: PaymentError };

export interface PaymentDeps {
  knex: Knex;
  acquirer: CardAcquirer;
}

/**
 * Payment intents over the card acquirer. Every state change happens on a locked intent row
 * inside the caller's transaction, with an acquirer idempotency key from business identity
 * (`{pi}:auth:{n}`, `{pi}:capture`, `{pi}:void`, `{pi}:refund:{key}`), and the events it causes
 * are recorded in the same transaction; the channel ids to wake are collected in `wake`.
 */
export function createPaymentService(deps: PaymentDeps) {
  const intents = createPaymentIntentRepository(deps.knex);
  const methods = createPaymentMethodRepository(deps.knex);
  const events = createEventRepository(deps.knex);

  async function emit(
    scope: Scope,
    type: string,
    row: PaymentIntentRow,
    trx: Knex.Transaction,
    wake: string[],
    extra = {},
  ) {
    const pm = row.payment_method_id ? await methods.findById(scope, row.payment_method_id, trx) : null;
    const recorded = await events.record(
      scope,
      { type, data: { ...presentPaymentIntent(row, pm), ...extra } },
      trx,
    );
    wake.push(...recorded.channelIds);
  }

  function assertTestCardsAllowed(scope: Scope): void {
    if (scope.livemode)
      throw new ServiceUnavailableError(
        'Card payments are not enabled in live mode: no card acquirer has approved this merchant yet',
        'card_payments_not_enabled',
      );
  }

  async function fail(
    scope: Scope,
    intent: PaymentIntentRow,
    error: PaymentError,
    trx: Knex.Transaction,
    wake: string[],
  ): Promise<PaymentIntentRow> {
    const row = await intents.update(
      intent.id,
      { status: 'requires_payment_method', last_payment_error: error, next_action_url: null },
      trx,
    );
    await emit(scope, 'payment_intent.failed', row, trx, wake);
    return row;
  }

  /** Applies an acquirer authorization to a locked intent. */
  async function applyAuthorization(
    scope: Scope,
    intent: PaymentIntentRow,
    auth: Authorization,
    trx: Knex.Transaction,
    wake: string[],
  ): Promise<AttemptOutcome> {
    if (auth.status === 'requires_action' && auth.action_url) {
      const row = await intents.update(
        intent.id,
        { status: 'requires_action', acquirer_authorization: auth.id, next_action_url: auth.action_url },
        trx,
      );
      return { kind: 'requires_action', intent: row, url: auth.action_url };
    }
    if (auth.status === 'authorized') {
      const row = await intents.update(
        intent.id,
        {
          status: 'requires_capture',
          acquirer_authorization: auth.id,
          next_action_url: null,
          last_payment_error: null,
        },
        trx,
      );
      return { kind: 'authorized', intent: row };
    }
    const code = auth.decline_code ?? 'generic_decline';
    const error = {
      code: 'card_declined',
      decline_code: code,
      message: DECLINE_MESSAGES[code] ?? DECLINE_MESSAGES.generic_decline!,
    };
    return { kind: 'declined', intent: await fail(scope, intent, error, trx, wake), error };
  }

  return {
    intents,
    methods,

    /** Tokenizes raw card details at the acquirer (test mode) and stores the payment method. */
    async tokenizeCard(
      scope: Scope,
      card: {
        number: string;
        exp_month: number;
        exp_year: number;
        cvc: string;
        wallet?: 'apple_pay' | 'google_pay' | null;
      },
      customerId: string | null,
      trx: Knex.Transaction | Knex = deps.knex,
    ): Promise<PaymentMethodRow> {
      assertTestCardsAllowed(scope);
      try {
        const token = await deps.acquirer.tokenize(card);
        return await methods.create(scope, token, customerId, trx);
      } catch (err) {
        if (err instanceof AcquirerCardError)
          throw new InvalidRequestError(DECLINE_MESSAGES[err.code] ?? err.message, {
            code: 'card_declined',
            param: 'card',
          });
        throw err;
      }
    },

    /** Authorizes a locked intent with a payment method (one attempt). */
    async attempt(
      scope: Scope,
      intent: PaymentIntentRow,
      pm: PaymentMethodRow,
      returnUrl: string,
      trx: Knex.Transaction,
      wake: string[],
    ): Promise<AttemptOutcome> {
      assertTestCardsAllowed(scope);
      const n = intent.attempt_count + 1;
      const current = await intents.update(
        intent.id,
        { attempt_count: n, payment_method_id: pm.id, return_url: returnUrl, last_payment_error: null },
        trx,
      );
      let auth: Authorization;
      try {
        auth = await deps.acquirer.authorize({
          token: pm.acquirer_token,
          amount: current.amount,
          currency: 'ISK',
          merchant: scope.merchantId,
          return_url: returnUrl,
          idempotency_key: `${intent.id}:auth:${n}`,
        });
      } catch (err) {
        if (!(err instanceof AcquirerError) || err.retryable) throw err;
        const error = {
          code: 'processing_error',
          decline_code: null,
          message: DECLINE_MESSAGES.processing_error!,
        };
        return { kind: 'declined', intent: await fail(scope, current, error, trx, wake), error };
      }
      return applyAuthorization(scope, current, auth, trx, wake);
    },

    /** After a 3-D Secure challenge: reads the authorization's outcome and applies it. */
    async resume(scope: Scope, intent: PaymentIntentRow, trx: Knex.Transaction, wake: string[]) {
      if (intent.status !== 'requires_action' || !intent.acquirer_authorization) return null;
      const auth = await deps.acquirer.retrieve(intent.acquirer_authorization);
      if (auth.status === 'requires_action')
        return { kind: 'requires_action' as const, intent, url: intent.next_action_url! };
      return applyAuthorization(scope, intent, auth, trx, wake);
    },

    /** Captures a locked `requires_capture` intent once; computes and stores the fee. */
    async capture(
      scope: Scope,
      intent: PaymentIntentRow,
      amount: number,
      trx: Knex.Transaction,
      wake: string[],
    ): Promise<PaymentIntentRow> {
      if (intent.status !== 'requires_capture')
        throw new ConflictError(
          `This PaymentIntent could not be captured because it has a status of ${intent.status}`,
          'payment_intent_unexpected_state',
        );
      if (amount < 1 || amount > intent.amount)
        throw new InvalidRequestError(`amount_to_capture must be between 1 and ${intent.amount}`, {
          code: 'parameter_invalid',
          param: 'amount_to_capture',
        });
      await deps.acquirer.capture({
        authorization: intent.acquirer_authorization!,
        amount,
        idempotency_key: `${intent.id}:capture`,
      });
      const row = await intents.update(
        intent.id,
        {
          status: 'succeeded',
          amount_captured: amount,
          fee_amount: cardFee(amount, intent.channel),
          captured_at: new Date(),
        },
        trx,
      );
      await emit(scope, 'payment_intent.captured', row, trx, wake);
      return row;
    },

    /**
     * Voids the hold of an authorized intent that checkout could not complete (a code used up,
     * stock gone, a link at its limit) and makes it payable again.
     */
    async release(
      _scope: Scope,
      intent: PaymentIntentRow,
      message: string,
      trx: Knex.Transaction,
    ): Promise<PaymentIntentRow> {
      await deps.acquirer.void(intent.acquirer_authorization!, `${intent.id}:void:${intent.attempt_count}`);
      return intents.update(
        intent.id,
        {
          status: 'requires_payment_method',
          acquirer_authorization: null,
          last_payment_error: { code: 'checkout_refused', decline_code: null, message },
        },
        trx,
      );
    },

    async cancel(
      scope: Scope,
      intent: PaymentIntentRow,
      reason: string | null,
      trx: Knex.Transaction,
    ): Promise<PaymentIntentRow> {
      if (!['requires_payment_method', 'requires_action', 'requires_capture'].includes(intent.status))
        throw new ConflictError(
          `This PaymentIntent could not be canceled because it has a status of ${intent.status}`,
          'payment_intent_unexpected_state',
        );
      if (intent.acquirer_authorization)
        await deps.acquirer.void(intent.acquirer_authorization, `${intent.id}:void`);
      return intents.update(
        intent.id,
        { status: 'canceled', canceled_at: new Date(), cancellation_reason: reason, next_action_url: null },
        trx,
      );
    },

    /**
     * Refunds part or all of a captured payment. The intent row is locked, so concurrent refunds
     * queue; the remaining amount is checked under the lock and a CHECK constraint backs it. A
     * repeated idempotency key returns the first refund.
     */
    async refund(
      scope: Scope,
      intentId: string,
      input: { amount?: number; reason?: RefundRow['reason']; idempotencyKey?: string },
      trx: Knex.Transaction,
      wake: string[],
    ): Promise<RefundRow> {
      const intent = await intents.lock(scope, intentId, trx);
      if (!intent)
        throw new InvalidRequestError(`No such payment_intent: '${intentId}'`, {
          code: 'resource_missing',
          param: 'payment_intent',
        });
      if (input.idempotencyKey !== undefined) {
        const existing = await intents.findRefundByKey(intent.id, input.idempotencyKey, trx);
        if (existing) return existing;
      }
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
      const amount = input.amount ?? remaining;
      if (amount > remaining)
        throw new InvalidRequestError(
          `Refund amount (${amount} ISK) is greater than the unrefunded amount (${remaining} ISK)`,
          { code: 'amount_too_large', param: 'amount' },
        );
      const id = newId(ID_PREFIX.refund);
      const key = input.idempotencyKey ?? id;
      const done = await deps.acquirer.refund({
        authorization: intent.acquirer_authorization!,
        amount,
        idempotency_key: `${intent.id}:refund:${key}`,
      });
      const refund = await intents.insertRefund(
        {
          id,
          merchant_id: scope.merchantId,
          livemode: scope.livemode,
          payment_intent_id: intent.id,
          amount,
          status: 'succeeded',
          reason: input.reason ?? null,
          idempotency_key: key,
          acquirer_reference: done.id,
        },
        trx,
      );
      const row = await intents.update(intent.id, { amount_refunded: intent.amount_refunded + amount }, trx);
      await emit(scope, 'payment_intent.refunded', row, trx, wake, { refund: presentRefund(refund) });
      return refund;
    },
  };
}

export type PaymentService = ReturnType<typeof createPaymentService>;
