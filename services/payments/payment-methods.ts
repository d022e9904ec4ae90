import type { Knex } from '../../db/knex';
import type { Scope } from '../../domain/scope';
import type { PageOptions } from '../../db/tenant';
import { createCustomerRepository } from '../../db/customers';
import { ConflictError } from '../../domain/errors';
import { findOr404, findReference, missingReference } from '../lookup';
import type { PaymentService } from './card-payments';
import type { TestCardInput } from './payment-intents';
import { presentCustomerDefaultPaymentMethod, presentPaymentMethod } from './payment-method-object';

/** Saved cards of customers: tokenize, list, retrieve, attach, detach and set as default. */
export function createPaymentMethodService(deps: { knex: Knex; payments: PaymentService }) {
  const { methods } = deps.payments;
  const customers = createCustomerRepository(deps.knex);

  const find = (scope: Scope, id: string) =>
    findOr404(
      'payment_method',
      scope,
      id,
      () => methods.findById(scope, id),
      () => methods.existsInOtherMode(scope, id),
    );
  const customer = async (scope: Scope, id: string) => {
    const row = await customers.findById(scope, id);
    if (!row) throw missingReference('customer', id, 'customer');
    return row;
  };

  return {
    /** Test mode: tokenizes a test card, optionally attached to a customer. */
    async create(scope: Scope, input: { card: TestCardInput; customer?: string | undefined }) {
      if (input.customer) await customer(scope, input.customer);
      return presentPaymentMethod(
        await deps.payments.tokenizeCard(scope, input.card, input.customer ?? null),
      );
    },

    /** A customer's saved payment methods, detached ones excluded. */
    async list(scope: Scope, opts: PageOptions & { customerId: string }) {
      await customer(scope, opts.customerId);
      const page = await methods.list(scope, opts);
      return { data: page.data.map(presentPaymentMethod), hasMore: page.hasMore };
    },

    async retrieve(scope: Scope, id: string) {
      return presentPaymentMethod(await find(scope, id));
    },

    async attach(scope: Scope, id: string, customerId: string) {
      const pm = await find(scope, id);
      await customer(scope, customerId);
      if (pm.detached_at || (pm.customer_id !== null && pm.customer_id !== customerId))
        throw new ConflictError(
          'This payment method was detached or belongs to another customer',
          'payment_method_unexpected_state',
        );
      return presentPaymentMethod((await methods.attach(scope, pm.id, customerId))!);
    },

    /** Detaches for good: the card can no longer be used. */
    async detach(scope: Scope, id: string) {
      const pm = await find(scope, id);
      return presentPaymentMethod((await deps.knex.transaction((trx) => methods.detach(scope, pm.id, trx)))!);
    },

    /** Sets the customer's default payment method (customers.default_payment_method). */
    async setDefault(scope: Scope, customerId: string, paymentMethodId: string) {
      const cus = await findOr404(
        'customer',
        scope,
        customerId,
        () => customers.findById(scope, customerId),
        () => customers.existsInOtherMode(scope, customerId),
      );
      const pm = await findReference('payment_method', paymentMethodId, 'payment_method', () =>
        methods.findById(scope, paymentMethodId),
      );
      if (pm.customer_id !== cus.id)
        throw new ConflictError(
          'The payment method is not attached to this customer',
          'payment_method_not_attached',
          'payment_method',
        );
      await methods.setDefault(scope, cus.id, pm.id);
      return presentCustomerDefaultPaymentMethod(cus.id, pm.id);
    },
  };
}

export type PaymentMethodService = ReturnType<typeof createPaymentMethodService>;
