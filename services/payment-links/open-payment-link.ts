import type { Knex } from '../../db/knex';
import type { CheckoutService, SessionInput } from '../checkout';
import { createPaymentLinkRepository } from '../../db/payment-links';

export type PaymentLinkVisit = { sessionId: string } | { unavailable: true } | null;

/**
 * A buyer opens a payment link (`/l/plink_…`): a new checkout session from the link's template,
 * unless the link is off or sold out. Null when there is no such link.
 */
export function createPaymentLinkVisits(deps: { knex: Knex; checkout: CheckoutService }) {
  const links = createPaymentLinkRepository(deps.knex);
  return {
    async open(id: string): Promise<PaymentLinkVisit> {
      const link = await links.findForVisit(id);
      if (!link) return null;
      if (
        !link.active ||
        (link.completed_sessions_limit !== null &&
          link.completed_sessions_count >= link.completed_sessions_limit)
      )
        return { unavailable: true };
      const scope = { merchantId: link.merchant_id, livemode: link.livemode };
      const template = link.template as Omit<SessionInput, 'mode' | 'paymentLinkId'>;
      const session = await deps.checkout.create(scope, {
        ...template,
        mode: 'payment',
        paymentLinkId: link.id,
      });
      return { sessionId: session.id };
    },
  };
}

export type PaymentLinkVisits = ReturnType<typeof createPaymentLinkVisits>;
