import type { Knex } from '../../db/knex';
import type { Scope } from '../../domain/scope';
import type { PageOptions } from '../../db/tenant';
import { createPaymentLinkRepository, type PaymentLinkTemplate } from '../../db/payment-links';
import { createCheckoutSessionRepository } from '../../db/checkout-sessions';
import { ConflictError, InvalidRequestError } from '../../domain/errors';
import { findOr404 } from '../lookup';
import type { CheckoutService } from '../checkout';
import { presentPaymentLink } from './payment-link-object';

export interface PaymentLinkInput extends PaymentLinkTemplate {
  completed_sessions_limit?: number | null | undefined;
  metadata?: Record<string, string> | undefined;
}

export interface PaymentLinkUpdate {
  active?: boolean | undefined;
  completed_sessions_limit?: number | null | undefined;
  metadata?: Record<string, string> | undefined;
}

/** The checkout session a link's template opens: payment unless the link is a subscription link. */
function sessionOf(template: PaymentLinkTemplate) {
  const { mode, subscription_data, ...rest } = template;
  return {
    ...rest,
    mode: mode ?? 'payment',
    ...(mode === 'subscription' && subscription_data && { subscription_data }),
  };
}

/** Opens a new checkout session from a link, or explains why it cannot (inactive, limit reached). */
export async function openPaymentLink(
  knex: Knex,
  checkout: Pick<CheckoutService, 'create'>,
  id: string,
): Promise<{ sessionId: string } | { unavailable: true } | null> {
  const link = await createPaymentLinkRepository(knex).findPublic(id);
  if (!link) return null;
  if (
    !link.active ||
    (link.completed_sessions_limit !== null && link.completed_sessions_count >= link.completed_sessions_limit)
  )
    return { unavailable: true };
  const scope = { merchantId: link.merchant_id, livemode: link.livemode };
  const session = await checkout.create(scope, { ...sessionOf(link.template), paymentLinkId: link.id });
  return { sessionId: session.id };
}

/** Payment links: a reusable URL opening a new checkout session per visit; deactivated, never deleted. */
export function createPaymentLinkService(deps: {
  knex: Knex;
  checkout: Pick<CheckoutService, 'create'>;
  publicBaseUrl: string;
}) {
  const links = createPaymentLinkRepository(deps.knex);
  const sessions = createCheckoutSessionRepository(deps.knex);
  const find = (scope: Scope, id: string) =>
    findOr404(
      'payment_link',
      scope,
      id,
      () => links.findById(scope, id),
      () => links.existsInOtherMode(scope, id),
    );
  const present = (row: Parameters<typeof presentPaymentLink>[0]) =>
    presentPaymentLink(row, deps.publicBaseUrl);

  return {
    async create(scope: Scope, input: PaymentLinkInput) {
      const { completed_sessions_limit, metadata, ...template } = input;
      // The template must make a valid session: try it now, so a bad link fails at creation.
      if (template.mode !== 'subscription' && template.subscription_data !== undefined)
        throw new InvalidRequestError('subscription_data needs mode subscription', {
          code: 'parameter_invalid',
          param: 'subscription_data',
        });
      const probe = await deps.checkout.create(scope, sessionOf(template));
      await sessions.deleteProbe(probe.id);
      return present(
        await links.create(scope, {
          template,
          completedSessionsLimit: completed_sessions_limit ?? null,
          metadata: metadata ?? {},
        }),
      );
    },

    /** Newest first; `active` filters. */
    async list(scope: Scope, opts: PageOptions & { active?: boolean | undefined }) {
      const page = await links.list(scope, opts);
      return { data: page.data.map(present), hasMore: page.hasMore };
    },

    async retrieve(scope: Scope, id: string) {
      return present(await find(scope, id));
    },

    /** The active flag, the limit and metadata; the template never changes. */
    async update(scope: Scope, id: string, input: PaymentLinkUpdate) {
      const link = await find(scope, id);
      if (
        input.completed_sessions_limit != null &&
        input.completed_sessions_limit < link.completed_sessions_count
      )
        throw new InvalidRequestError('completed_sessions_limit is below the sessions already completed', {
          code: 'parameter_invalid',
          param: 'completed_sessions_limit',
        });
      return present(
        await links.update(scope, link.id, {
          ...(input.active !== undefined && { active: input.active }),
          ...(input.completed_sessions_limit !== undefined && {
            completed_sessions_limit: input.completed_sessions_limit,
          }),
          ...(input.metadata !== undefined && { metadata: input.metadata }),
        }),
      );
    },

    /** Always refused (after a 404 for an unknown link): sessions and payments refer to links. */
    async delete(scope: Scope, id: string): Promise<never> {
      await find(scope, id);
      throw new ConflictError(
        'Payment links cannot be deleted, because sessions and payments refer to them; deactivate with active=false',
        'payment_link_not_deletable',
      );
    },

    open: (id: string) => openPaymentLink(deps.knex, deps.checkout, id),
  };
}

export type PaymentLinkService = ReturnType<typeof createPaymentLinkService>;
