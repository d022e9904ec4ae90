import type { Knex } from '../../db/knex';
import type { WebhookDispatcher } from '../../engine/webhook-dispatch';
import type { SubscriptionEngine } from '../../engine/subscription-engine';
import type { CheckoutSessionRow } from '../../db/checkout-sessions';
import { successRedirect } from '../../domain/checkout';
import type { PaymentService } from '../payments/card-payments';
import { createSubscriptionSignup } from './subscription-signup';
import { createCheckoutPromotionCodes } from './promotion-codes';
import { createCheckoutSessions } from './sessions';
import { createCheckoutCompletion } from './completion';
import { createCardPayment } from './card-payment';
import { createClaimPayment } from './claim-payment';
import { createTestCompletion } from './test-completion';
import type { CarrierService } from '../delivery/carriers';
import type { DeliveryService } from '../delivery/deliveries';
import type { Logger } from '../../stack/logger';

export type { ItemInput, SubscriptionDataInput, SessionInput, PayInput, PayOutcome } from './inputs';

/** Hosted checkout: sessions, promotion codes, card and krafa payment, subscription sign-up. */
export function createCheckoutService(deps: {
  knex: Knex;
  /** Card payments on the same handle as `knex`: a checkout bound to a transaction pays within it. */
  payments: PaymentService;
  dispatcher: WebhookDispatcher;
  publicBaseUrl: string;
  /** Starts the lifecycle of a trial subscription created at completion; null without Temporal. */
  engine?: SubscriptionEngine | null;
  /**
   * Issues pending claims now (a claim batch named `batch`) instead of at the next scheduled batch;
   * unset or failing: the scheduled batch issues them (decision 0063).
   */
  issueClaims?: ((livemode: boolean, batch: string) => Promise<void>) | undefined;
  /** After a paid checkout commits: the buyer's receipt email (decision 0141); it never fails a payment. */
  afterPaid?: ((paymentIntentId: string) => Promise<void>) | undefined;
  /** Pickup points and deliveries (decision 0134); unset: sessions cannot ask for a pickup point. */
  delivery?: { carriers: CarrierService; deliveries: DeliveryService; log: Logger } | undefined;
}) {
  const { payments } = deps;
  const signup = createSubscriptionSignup({ knex: deps.knex });
  const promotionCodes = createCheckoutPromotionCodes({ knex: deps.knex });
  const sessions = createCheckoutSessions({
    knex: deps.knex,
    publicBaseUrl: deps.publicBaseUrl,
    engine: deps.engine,
    promotionCodes,
    signup,
    carriers: deps.delivery?.carriers,
  });
  const completion = createCheckoutCompletion({
    knex: deps.knex,
    payments,
    signup,
    dispatcher: deps.dispatcher,
    publicBaseUrl: deps.publicBaseUrl,
    engine: deps.engine,
    delivery: deps.delivery,
  });
  const card = createCardPayment({ knex: deps.knex, payments, completion, afterPaid: deps.afterPaid });
  const claim = createClaimPayment({ knex: deps.knex, completion, issueClaims: deps.issueClaims });

  return {
    ...sessions,
    applyCode: promotionCodes.applyCode,
    ...claim,
    ...card,
    completeForTest: createTestCompletion({
      retrieve: (scope, id) => sessions.retrieve(scope, id),
      pay: (id, input) => card.pay(id, input),
      publicBaseUrl: deps.publicBaseUrl,
    }),

    /** Where the buyer goes after paying: success_url with the id substituted, or our own page. */
    successUrl(s: CheckoutSessionRow): string {
      return s.success_url ? successRedirect(s.success_url, s.id) : `${deps.publicBaseUrl}/checkout/${s.id}`;
    },
  };
}

export type CheckoutService = ReturnType<typeof createCheckoutService>;
