import type { Db } from '../../db/knex';
import type { Scope } from '../../domain/scope';
import { createPriceRepository } from '../../db/prices';
import { createPaymentMethodRepository } from '../../db/payment-methods';
import { createMerchantRepository } from '../../db/merchants';
import { InvalidRequestError, NotFoundError } from '../../domain/errors';
import { assertClaimsEnabled } from '../merchant/onboarding';

export const bad = (message: string, param: string) =>
  new InvalidRequestError(message, { code: 'parameter_invalid', param });

/** Checks that what a subscription refers to can be used: its price, card, bank claims (coupons: discounts.ts). */
export function createReferenceChecks(db: Db) {
  const prices = createPriceRepository(db);
  const cards = createPaymentMethodRepository(db);
  const merchants = createMerchantRepository(db);

  return {
    async recurringPrice(scope: Scope, id: string, trx: Db, param: string) {
      const price = await prices.findById(scope, id, trx);
      if (!price) throw new NotFoundError(`No such price: '${id}'`, param);
      if (price.type !== 'recurring') throw bad('The price is not recurring', param);
      if (!price.active) throw bad('The price is not active', param);
      return price;
    },

    async usableCard(scope: Scope, customerId: string, id: string, trx: Db, param: string) {
      const pm = await cards.findById(scope, id, trx);
      if (!pm || pm.customer_id !== customerId || pm.detached_at !== null)
        throw bad(`No payment method '${id}' attached to the customer`, param);
    },

    /** The merchant can issue kröfur in this environment (the one rule, merchant/onboarding.ts). */
    async claimsEnabled(scope: Scope, trx: Db, param: string) {
      assertClaimsEnabled(await merchants.findById(scope.merchantId, trx), scope.livemode, param);
    },

    /** A claim-collected subscription: claims enabled, a claimant kennitala and a payer kennitala. */
    async claimsPossible(scope: Scope, payer: string | null, trx: Db) {
      await this.claimsEnabled(scope, trx, 'collection_method');
      if (!payer)
        throw bad('A subscription collected by claim needs a customer with a kennitala', 'customer');
    },
  };
}
