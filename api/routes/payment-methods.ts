import { Router } from 'express';
import { z } from 'zod';
import type { Knex } from '../../db/knex';
import type { Scope } from '../../domain/scope';
import type { OperationDoc } from '../openapi';
import type { PaymentService } from '../../services/payments';
import type { PaymentMethodRow } from '../../db/payment-methods';
import { createCustomerRepository } from '../../db/customers';
import { ConflictError } from '../../domain/errors';
import { createRoutes } from '../route';
import { listOf, listResponse } from '../list';
import { unix } from '../../domain/unix-time';
import { pageOptions, pageQuery, zId } from '../fields';
import { findOr404, missingReference } from '../../services/lookup';
import { zTestCard } from './payment-intents';

export const PaymentMethodSchema = z.object({
  id: z.string(),
  object: z.literal('payment_method'),
  livemode: z.boolean(),
  type: z.literal('card'),
  customer: z.string().nullable(),
  card: z.object({
    brand: z.string(),
    last4: z.string(),
    exp_month: z.number(),
    exp_year: z.number(),
    wallet: z.enum(['apple_pay', 'google_pay']).nullable(),
  }),
  created_at: z.number(),
});

export function presentPaymentMethod(row: PaymentMethodRow) {
  return {
    id: row.id,
    object: 'payment_method' as const,
    livemode: row.livemode,
    type: 'card' as const,
    customer: row.customer_id,
    card: {
      brand: row.card_brand,
      last4: row.card_last4,
      exp_month: row.card_exp_month,
      exp_year: row.card_exp_year,
      wallet: row.wallet,
    },
    created_at: unix(row.created_at),
  };
}

/** Saved cards of customers: list, retrieve, attach, detach and set as default. */
export function paymentMethodsRouter(
  deps: { knex: Knex; payments: PaymentService },
  docs: OperationDoc[],
): Router {
  const router = Router();
  const route = createRoutes(router, docs);
  const { methods } = deps.payments;
  const customers = createCustomerRepository(deps.knex);
  const tag = 'Payment Methods';

  const find = (scope: Scope, id: string, param = 'id') =>
    findOr404(
      'payment_method',
      scope,
      id,
      () => methods.findById(scope, id),
      () => methods.existsInOtherMode(scope, id),
      param,
    );
  const customer = async (scope: Scope, id: string) => {
    const row = await customers.findById(scope, id);
    if (!row) throw missingReference('customer', id, 'customer');
    return row;
  };

  route({
    method: 'post',
    path: '/v1/payment-methods',
    summary: 'Test mode: tokenize a test card into a payment method, optionally attached to a customer',
    tag,
    body: z.object({ card: zTestCard, customer: zId.optional() }).strict(),
    response: PaymentMethodSchema,
    handler: async ({ body, scope }) => {
      if (body.customer) await customer(scope, body.customer);
      return presentPaymentMethod(await deps.payments.tokenizeCard(scope, body.card, body.customer ?? null));
    },
  });

  route({
    method: 'get',
    path: '/v1/payment-methods',
    summary: "List a customer's saved payment methods (detached ones excluded)",
    tag,
    query: pageQuery.extend({ customer: zId }).strict(),
    response: listOf(PaymentMethodSchema),
    handler: async ({ query, scope }) => {
      await customer(scope, query.customer);
      const page = await methods.list(scope, { ...pageOptions(query), customerId: query.customer });
      return listResponse('/v1/payment-methods', page.data.map(presentPaymentMethod), page.hasMore);
    },
  });

  route({
    method: 'get',
    path: '/v1/payment-methods/:id',
    summary: 'Retrieve a payment method',
    tag,
    response: PaymentMethodSchema,
    handler: async ({ params, scope }) => presentPaymentMethod(await find(scope, params.id!)),
  });

  route({
    method: 'post',
    path: '/v1/payment-methods/:id/attach',
    summary: 'Attach a payment method to a customer',
    tag,
    body: z.object({ customer: zId }).strict(),
    response: PaymentMethodSchema,
    handler: async ({ params, body, scope }) => {
      const pm = await find(scope, params.id!);
      await customer(scope, body.customer);
      if (pm.detached_at || (pm.customer_id !== null && pm.customer_id !== body.customer))
        throw new ConflictError(
          'This payment method was detached or belongs to another customer',
          'payment_method_unexpected_state',
        );
      return presentPaymentMethod((await methods.attach(scope, pm.id, body.customer))!);
    },
  });

  route({
    method: 'post',
    path: '/v1/payment-methods/:id/detach',
    summary: 'Detach a payment method from its customer; it can no longer be used',
    tag,
    response: PaymentMethodSchema,
    handler: async ({ params, scope }) => {
      const pm = await find(scope, params.id!);
      return presentPaymentMethod((await deps.knex.transaction((trx) => methods.detach(scope, pm.id, trx)))!);
    },
  });

  route({
    method: 'post',
    path: '/v1/customers/:id/default-payment-method',
    summary: "Set the customer's default payment method (customers.default_payment_method)",
    tag,
    body: z.object({ payment_method: zId }).strict(),
    response: z.object({ id: z.string(), object: z.literal('customer'), default_payment_method: z.string() }),
    handler: async ({ params, body, scope }) => {
      const cus = await findOr404(
        'customer',
        scope,
        params.id!,
        () => customers.findById(scope, params.id!),
        () => customers.existsInOtherMode(scope, params.id!),
      );
      const pm = await find(scope, body.payment_method, 'payment_method');
      if (pm.customer_id !== cus.id)
        throw new ConflictError(
          'The payment method is not attached to this customer',
          'payment_method_not_attached',
          'payment_method',
        );
      await methods.setDefault(scope, cus.id, pm.id);
      return { id: cus.id, object: 'customer' as const, default_payment_method: pm.id };
    },
  });

  return router;
}
