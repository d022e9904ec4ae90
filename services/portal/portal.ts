import type { Knex } from '../../db/knex';
import type { Scope } from '../../domain/scope';
import type { SubscriptionService } from '../subscriptions/subscriptions';
import { AcquirerCardError, type CardAcquirer } from '../../adapters/acquirers/card-acquirer';
import { createPortalSessionRepository, type PortalSessionRow } from '../../db/billing-portal-sessions';
import { createPaymentMethodRepository } from '../../db/payment-methods';
import { createPortalOverviewRepository } from '../../db/portal-overview';
import { InvalidRequestError } from '../../domain/errors';

export type { PortalSessionRow } from '../../db/billing-portal-sessions';
export type { PortalPaymentRow, PortalPriceRow, PortalSubscriptionRow } from '../../db/portal-overview';

/** A card as the customer typed it into the portal. */
export interface PortalCardInput {
  number: string;
  exp_month: number;
  exp_year: number;
  cvc: string;
}

const HISTORY_LENGTH = 24;

const scopeOf = (s: PortalSessionRow): Scope => ({ merchantId: s.merchant_id, livemode: s.livemode });

/**
 * The customer portal's operations (decision 0047): open a visit by its single-use token, show the
 * customer's subscriptions, payments and card, and update the card, cancel or switch plan through
 * the subscription service.
 */
export function createPortalService(deps: {
  knex: Knex;
  acquirer: CardAcquirer;
  subscriptions: SubscriptionService;
}) {
  const sessions = createPortalSessionRepository(deps.knex);
  const overview = createPortalOverviewRepository(deps.knex);
  const cards = createPaymentMethodRepository(deps.knex);

  async function ownSubscription(session: PortalSessionRow, id: string): Promise<string | null> {
    return (await overview.ownSubscription(session, id))?.id ?? null;
  }

  return {
    /** The session of a token, expired or not; undefined when the token names none. */
    findByToken: (token: string) => sessions.findByToken(token),

    /** Marks the session opened; false when another browser opened it first. */
    open: (session: PortalSessionRow) => sessions.open(session.id),

    /** What the portal page shows: running subscriptions, recent payments, plans and the card. */
    async overview(session: PortalSessionRow) {
      const [subscriptions, history, allowed] = await Promise.all([
        overview.subscriptions(session.customer_id),
        overview.payments(session.customer_id, HISTORY_LENGTH),
        overview.prices(session.allowed_prices),
      ]);
      const pmId = subscriptions[0]?.payment_method_id;
      const card = pmId ? await cards.findById(scopeOf(session), pmId) : undefined;
      return { subscriptions, history, allowed, cardLast4: card?.card_last4 ?? null };
    },

    /** A new card becomes the customer's default and every running subscription's card. */
    async updateCard(session: PortalSessionRow, input: PortalCardInput): Promise<void> {
      let token;
      try {
        token = await deps.acquirer.tokenize({ ...input, livemode: scopeOf(session).livemode });
      } catch (err) {
        // The card was refused: the customer reads the acquirer's reason and tries another.
        if (err instanceof AcquirerCardError) throw new InvalidRequestError(err.message, { code: err.code });
        throw err;
      }
      const pm = await cards.create(scopeOf(session), token, session.customer_id);
      await cards.setDefault(scopeOf(session), session.customer_id, pm.id);
      for (const id of await overview.runningSubscriptionIds(session.customer_id))
        await deps.subscriptions.update(scopeOf(session), id, { paymentMethod: pm.id });
    },

    /** Cancels now, or at the end of the period; the reason is kept either way. */
    async cancel(
      session: PortalSessionRow,
      subscriptionId: string,
      opts: { now: boolean; reason: string | null },
    ): Promise<void> {
      const id = await ownSubscription(session, subscriptionId);
      if (!id) throw new InvalidRequestError('No such subscription');
      if (opts.now) await deps.subscriptions.cancel(scopeOf(session), id, opts.reason);
      else
        await deps.subscriptions.update(scopeOf(session), id, {
          cancelAtPeriodEnd: true,
          cancellationReason: opts.reason,
        });
    },

    /** Switches to one of the prices the portal session allows. */
    async switchPrice(session: PortalSessionRow, subscriptionId: string, price: string): Promise<void> {
      const id = await ownSubscription(session, subscriptionId);
      if (!id || !session.allowed_prices.includes(price))
        throw new InvalidRequestError('That plan is not available');
      await deps.subscriptions.update(scopeOf(session), id, { price });
    },
  };
}

export type PortalService = ReturnType<typeof createPortalService>;
