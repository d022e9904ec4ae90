import { Router } from 'express';
import { z } from 'zod';
import type { OperationDoc } from '../openapi';
import type { PaymentMethodService } from '../../services/payments/payment-methods';
import {
  CustomerDefaultPaymentMethodSchema,
  PaymentMethodSchema,
} from '../../services/payments/payment-method-object';
import { createRoutes } from '../route';
import { listOf, listResponse } from '../list';
import { pageOptions, pageQuery, zId } from '../fields';
import { zTestCard } from './payment-intents';

/** Saved cards of customers: list, retrieve, attach, detach and set as default. */
export function paymentMethodsRouter(
  deps: { paymentMethods: PaymentMethodService },
  docs: OperationDoc[],
): Router {
  const router = Router();
  const route = createRoutes(router, docs);
  const { paymentMethods } = deps;
  const tag = 'Payment Methods';

  route({
    method: 'post',
    path: '/v1/payment-methods',
    summary: 'Test mode: tokenize a test card into a payment method, optionally attached to a customer',
    tag,
    body: z.object({ card: zTestCard, customer: zId.optional() }).strict(),
    response: PaymentMethodSchema,
    handler: ({ body, scope }) => paymentMethods.create(scope, body),
  });

  route({
    method: 'get',
    path: '/v1/payment-methods',
    summary: "List a customer's saved payment methods (detached ones excluded)",
    tag,
    query: pageQuery.extend({ customer: zId }).strict(),
    response: listOf(PaymentMethodSchema),
    handler: async ({ query, scope }) => {
      const page = await paymentMethods.list(scope, { ...pageOptions(query), customerId: query.customer });
      return listResponse('/v1/payment-methods', page.data, page.hasMore);
    },
  });

  route({
    method: 'get',
    path: '/v1/payment-methods/:id',
    summary: 'Retrieve a payment method',
    tag,
    response: PaymentMethodSchema,
    handler: ({ params, scope }) => paymentMethods.retrieve(scope, params.id!),
  });

  route({
    method: 'post',
    path: '/v1/payment-methods/:id/attach',
    summary: 'Attach a payment method to a customer',
    tag,
    body: z.object({ customer: zId }).strict(),
    response: PaymentMethodSchema,
    handler: ({ params, body, scope }) => paymentMethods.attach(scope, params.id!, body.customer),
  });

  route({
    method: 'post',
    path: '/v1/payment-methods/:id/detach',
    summary: 'Detach a payment method from its customer; it can no longer be used',
    tag,
    response: PaymentMethodSchema,
    handler: ({ params, scope }) => paymentMethods.detach(scope, params.id!),
  });

  route({
    method: 'post',
    path: '/v1/customers/:id/default-payment-method',
    summary: "Set the customer's default payment method (customers.default_payment_method)",
    tag,
    body: z.object({ payment_method: zId }).strict(),
    response: CustomerDefaultPaymentMethodSchema,
    handler: ({ params, body, scope }) => paymentMethods.setDefault(scope, params.id!, body.payment_method),
  });

  return router;
}
