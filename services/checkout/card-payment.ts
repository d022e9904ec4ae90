import type { Knex } from '../../db/knex';
import type { Scope } from '../../domain/scope';
import { createCheckoutSessionRepository, type CheckoutSessionRow } from '../../db/checkout-sessions';
import type { SubscriptionRow } from '../../db/subscriptions';
import { ApiError } from '../../domain/errors';
import { DECLINE_MESSAGES, type AttemptOutcome, type PaymentService } from '../payments/card-payments';
import type { PayInput, PayOutcome } from './inputs';
import type { CheckoutCompletion } from './completion';
import { issueInvoices } from '../invoices/issue';
import type { Wallet } from '../../adapters/acquirers/card-acquirer';

/** The buyer pays a session by card (or wallet), with a 3-D Secure challenge when the card asks. */
export function createCardPayment(deps: {
  knex: Knex;
  payments: PaymentService;
  completion: CheckoutCompletion;
  afterPaid?: ((paymentIntentId: string) => Promise<void>) | undefined;
}) {
  const sessions = createCheckoutSessionRepository(deps.knex);
  const { payments } = deps;
  const { readFields, answersPatch, claimCompletion, complete, afterCommit } = deps.completion;

  /** After an authorization: claims, capture, completion; a refused claim voids the hold. */
  async function finish(
    scope: Scope,
    s: CheckoutSessionRow,
    outcome: AttemptOutcome,
    trx: Knex.Transaction,
    wake: string[],
    started: SubscriptionRow[],
  ): Promise<PayOutcome> {
    if (outcome.kind === 'requires_action') return { kind: 'action', url: outcome.url };
    if (outcome.kind === 'declined') return { kind: 'declined', message: outcome.error.message, session: s };
    const refused = await claimCompletion(scope, s, trx);
    if (refused) {
      await payments.release(scope, outcome.intent, refused, trx);
      return { kind: 'declined', message: refused, session: s };
    }
    // Announced once completion has linked the customer and subscription, so the event's data is
    // what a GET of the intent returns.
    const captured = await payments.capture(scope, outcome.intent, outcome.intent.amount, trx, wake, {
      announce: false,
    });
    const done = await complete(
      scope,
      s,
      'paid',
      captured.payment_method_id,
      captured.id,
      trx,
      wake,
      started,
    );
    await payments.announceCaptured(scope, captured.id, trx, wake);
    // Last: issuing locks the merchant's invoice sequence until the transaction ends.
    wake.push(...(await issueInvoices(trx, [captured.id])));
    return { kind: 'complete', session: done };
  }

  return {
    /** The wallet buttons the session's page offers (one-off payments only; decision 0165). */
    async walletsOffered(s: CheckoutSessionRow): Promise<readonly Wallet[]> {
      if (s.mode !== 'payment') return [];
      return payments.walletsFor({ merchantId: s.merchant_id, livemode: s.livemode });
    },

    /**
     * The buyer pays. The session row is locked for the whole attempt, so a double-clicked pay
     * button or a second tab waits and then finds the session complete: it is paid once.
     */
    async pay(sessionId: string, input: PayInput): Promise<PayOutcome> {
      const wake: string[] = [];
      const started: SubscriptionRow[] = [];
      const result = await deps.knex.transaction(async (trx): Promise<PayOutcome> => {
        const s = await sessions.lockPublic(sessionId, trx);
        if (!s || s.status !== 'open') return { kind: 'closed', session: s! };
        const scope = { merchantId: s.merchant_id, livemode: s.livemode };
        const read = readFields(s, input);
        if (s.pickup_point_carriers && !s.pickup_point) read.errors.pickup_point = 'required';
        if (Object.keys(read.errors).length > 0) return { kind: 'invalid', errors: read.errors };
        const session = await sessions.update(s.id, answersPatch(s, read), trx);
        const needsCard = session.amount > 0 || session.save_payment_method;
        let pmId: string | null = null;
        if (needsCard) {
          // Live, a wallet pays with the wallet's own payment data from the buyer's device, which
          // this page cannot collect yet (decision 0165); test mode stands in a test card.
          if (input.wallet && scope.livemode)
            return { kind: 'declined', message: DECLINE_MESSAGES.wallet_data_required!, session };
          const card = input.wallet
            ? {
                number: '4242424242424242',
                exp_month: 12,
                exp_year: new Date().getUTCFullYear() + 3,
                cvc: '123',
                wallet: input.wallet,
              }
            : input.card;
          if (!card) return { kind: 'invalid', errors: { card: 'required' } };
          try {
            pmId = (await payments.tokenizeCard(scope, card, null, trx)).id;
          } catch (err) {
            if (err instanceof ApiError) return { kind: 'declined', message: err.message, session };
            throw err;
          }
        }
        if (session.amount === 0) {
          const refused = await claimCompletion(scope, session, trx);
          if (refused) return { kind: 'declined', message: refused, session };
          return {
            kind: 'complete',
            session: await complete(scope, session, 'no_payment_required', pmId, null, trx, wake, started),
          };
        }
        let intent = await payments.intents.findBySession(scope, session.id, trx);
        if (intent && intent.amount !== session.amount)
          intent = await payments.intents.update(intent.id, { amount: session.amount }, trx);
        intent ??= await payments.intents.create(
          scope,
          {
            amount: session.amount,
            captureMethod: 'automatic',
            customerId: session.customer_id,
            checkoutSessionId: session.id,
            description: session.items.map((i) => i.description).join(', ') || null,
          },
          trx,
        );
        // The intent is the session's by its checkout_session_id; the session names it only once
        // paid (spec §2.1, decision 0204), so a declined attempt leaves `payment_intent` null.
        const pm = (await payments.methods.findById(scope, pmId!, trx))!;
        const outcome = await payments.attempt(scope, intent, pm, input.returnUrl, trx, wake);
        return finish(scope, session, outcome, trx, wake, started);
      });
      await afterCommit(wake, started);
      if (result.kind === 'complete') await deps.completion.bookDelivery(result.session);
      if (result.kind === 'complete' && result.session.payment_intent_id && deps.afterPaid)
        await deps.afterPaid(result.session.payment_intent_id);
      return result;
    },

    /** The buyer is back from a 3-D Secure challenge. */
    async resume(sessionId: string): Promise<PayOutcome> {
      const wake: string[] = [];
      const started: SubscriptionRow[] = [];
      const result = await deps.knex.transaction(async (trx): Promise<PayOutcome> => {
        const s = await sessions.lockPublic(sessionId, trx);
        if (!s || s.status !== 'open') return { kind: 'closed', session: s! };
        const scope = { merchantId: s.merchant_id, livemode: s.livemode };
        const intent = await payments.intents.findBySession(scope, s.id, trx);
        if (!intent) return { kind: 'closed', session: s };
        const outcome = await payments.resume(scope, intent, trx, wake);
        if (!outcome) return { kind: 'declined', message: DECLINE_MESSAGES.generic_decline!, session: s };
        return finish(scope, s, outcome, trx, wake, started);
      });
      await afterCommit(wake, started);
      if (result.kind === 'complete') await deps.completion.bookDelivery(result.session);
      return result;
    },
  };
}
