import type { Locale } from '../../domain/locale';
import type { Knex } from '../../db/knex';
import type { Scope } from '../../domain/scope';
import { createPortalSessionRepository } from '../../db/billing-portal-sessions';
import { createCustomerRepository } from '../../db/customers';
import { createPriceRepository } from '../../db/prices';
import { InvalidRequestError } from '../../domain/errors';
import { findReference, missingReference } from '../lookup';
import { presentPortalSession } from './billing-portal-session-object';

export interface PortalSessionInput {
  customer: string;
  return_url: string;
  locale?: Locale | undefined;
  /** Prices the customer may switch to: active recurring prices of the merchant. */
  allowed_prices?: string[] | undefined;
}

/** Billing portal sessions (decision 0047): a single-use, expiring link to the customer portal. */
export function createBillingPortalService(deps: { knex: Knex; publicBaseUrl: string }) {
  const sessions = createPortalSessionRepository(deps.knex);
  const customers = createCustomerRepository(deps.knex);
  const prices = createPriceRepository(deps.knex);

  return {
    async createSession(scope: Scope, input: PortalSessionInput) {
      const customer = await findReference('customer', input.customer, 'customer', () =>
        customers.findById(scope, input.customer),
      );
      const allowed = input.allowed_prices ?? [];
      if (allowed.length > 0) {
        const found = await prices.findByIds(scope, allowed);
        const unknown = allowed.findIndex((p) => !found.has(p));
        if (unknown >= 0) throw missingReference('price', allowed[unknown]!, `allowed_prices.${unknown}`);
        const unusable = allowed.findIndex(
          (p) => found.get(p)!.type !== 'recurring' || !found.get(p)!.active,
        );
        if (unusable >= 0)
          throw new InvalidRequestError(`No active recurring price: '${allowed[unusable]}'`, {
            code: 'parameter_invalid',
            param: `allowed_prices.${unusable}`,
          });
      }
      const { row, token } = await sessions.create(scope, {
        customerId: customer.id,
        returnUrl: input.return_url,
        locale: input.locale ?? null,
        allowedPrices: allowed,
      });
      return presentPortalSession(row, token, deps.publicBaseUrl);
    },
  };
}

export type BillingPortalService = ReturnType<typeof createBillingPortalService>;
