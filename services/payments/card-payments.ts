import type { Knex } from '../../db/knex';
import type { Scope } from '../../domain/scope';
import type { Authorization, CardAcquirer, Wallet } from '../../adapters/acquirers/card-acquirer';
import { AcquirerCardError, AcquirerError, reportedFee } from '../../adapters/acquirers/card-acquirer';
import {
  createPaymentIntentRepository,
  type PaymentError,
  type PaymentIntentRow,
} from '../../db/payment-intents';
import { createPaymentMethodRepository, type PaymentMethodRow } from '../../db/payment-methods';
import { recordAcquirerFees } from '../../db/payment-costs';
import { cardFee } from '../../domain/fees';
import { ConflictError, InvalidRequestError, ServiceUnavailableError } from '../../domain/errors';
import { createPaymentIntentEvents } from './payment-intent-events';
import { createMerchantRepository } from '../../db/merchants';
import { enabledCapabilities } from '../../domain/capabilities';
import { onboardingState } from '../merchant/onboarding';

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
  wallet_data_required: 'This wallet could not be used here. Pay by card instead.',
};

const TEST_WALLETS: readonly Wallet[] = ['apple_pay', 'google_pay'];

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
  const { emit } = createPaymentIntentEvents(deps.knex);
  const merchants = createMerchantRepository(deps.knex);

  /**
   * Test mode always takes cards (the simulated acquirer). Live mode takes them when this process
   * has a live acquirer (decision 0165) and the merchant has `payments.card` enabled: approved, and
   * the acquirer activated by an operator. Otherwise 503, as before a live acquirer existed.
   */
  async function assertCardsAllowed(scope: Scope, trx: Knex.Transaction | Knex): Promise<void> {
    if (!scope.livemode) return;
    if (!deps.acquirer.live)
      throw new ServiceUnavailableError(
        'Card payments are not enabled in live mode: no live card acquirer is configured',
        'card_payments_not_enabled',
      );
    const merchant = await merchants.findById(scope.merchantId, trx);
    if (!merchant || !enabledCapabilities(onboardingState(merchant), true).includes('payments.card'))
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

    /**
     * The wallets a buyer may pay with in this environment: both test wallets in test mode; live,
     * only those the live acquirer reports, and none while live cards are not allowed (decision 0165).
     */
    async walletsFor(scope: Scope, trx: Knex.Transaction | Knex = deps.knex): Promise<readonly Wallet[]> {
      if (!scope.livemode) return TEST_WALLETS;
      try {
        await assertCardsAllowed(scope, trx);
      } catch (err) {
        if (err instanceof ServiceUnavailableError) return [];
        throw err;
      }
      return deps.acquirer.live?.wallets ?? [];
    },

    /** Tokenizes raw card details at the environment's acquirer and stores the payment method. */
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
      await assertCardsAllowed(scope, trx);
      try {
        const token = await deps.acquirer.tokenize({ ...card, livemode: scope.livemode });
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
      await assertCardsAllowed(scope, trx);
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
      opts: { announce?: boolean } = {},
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
      const captured = await deps.acquirer.capture({
        authorization: intent.acquirer_authorization!,
        amount,
        idempotency_key: `${intent.id}:capture`,
      });
      const at = new Date();
      const row = await intents.update(
        intent.id,
        {
          status: 'succeeded',
          amount_captured: amount,
          fee_amount: cardFee(amount, intent.channel),
          captured_at: at,
        },
        trx,
      );
      // The acquirer's own fee is added on top (spec §1, decision 0113), recorded with the capture.
      const acquirerFee = reportedFee(captured);
      if (acquirerFee !== null)
        await recordAcquirerFees(trx, [
          {
            merchantId: scope.merchantId,
            livemode: scope.livemode,
            paymentIntentId: intent.id,
            authorization: intent.acquirer_authorization!,
            amount: acquirerFee,
            at: row.captured_at ?? at,
          },
        ]);
      if (opts.announce !== false) await emit(scope, 'payment_intent.captured', row, trx, wake);
      return row;
    },

    /** Records `payment_intent.captured` for an intent captured with `announce: false`, as it is now. */
    async announceCaptured(scope: Scope, id: string, trx: Knex.Transaction, wake: string[]) {
      await emit(scope, 'payment_intent.captured', (await intents.findById(scope, id, trx))!, trx, wake);
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
  };
}

export type PaymentService = ReturnType<typeof createPaymentService>;
