import { Router } from 'express';
import { z } from 'zod';
import type { OperationDoc } from '../openapi';
import type { PaymentIntentService } from '../../services/payments/payment-intents';
import type { RefundService } from '../../services/payments/refunds';
import { PaymentIntentSchema } from '../../services/payments/payment-intent-object';
import { RefundSchema } from '../../services/payments/refund-object';
import { createRoutes } from '../route';
import { listOf, listResponse } from '../list';
import { zBool, zInt } from '../validation';
import { pageOptions, pageQuery, zAmount, zCurrency, zId, zLine, zStoredMetadata } from '../fields';

/** Raw card details, accepted in test mode only (test card numbers: docs/guides/testing.md). */
export const zTestCard = z
  .object({
    number: z.string().regex(/^[0-9 ]{12,23}$/, 'must be a card number'),
    exp_month: zInt().pipe(z.number().min(1).max(12)),
    exp_year: zInt().pipe(z.number().min(2000).max(2200)),
    cvc: z.string().regex(/^\d{3,4}$/, 'must be 3 or 4 digits'),
  })
  .strict()
  .transform((c) => ({ ...c, number: c.number.replace(/ /g, '') }));

const zReturnUrl = z
  .string()
  .max(2048)
  .regex(/^https?:\/\/[^\s"'<>\\]+$/, 'must be an absolute http(s) URL');

const CreateIntent = z
  .object({
    amount: zAmount().pipe(z.number().min(1)),
    currency: zCurrency.default('ISK'),
    capture_method: z.enum(['automatic', 'manual']).default('automatic'),
    customer: zId.optional(),
    payment_method: zId.optional(),
    card: zTestCard.optional().describe('Test mode only: a test card, tokenized at once'),
    confirm: zBool().default(false),
    return_url: zReturnUrl.optional(),
    description: zLine(1000).optional(),
    metadata: zStoredMetadata.optional(),
  })
  .strict();

const ConfirmIntent = z
  .object({ payment_method: zId.optional(), card: zTestCard.optional(), return_url: zReturnUrl.optional() })
  .strict();
const CaptureIntent = z.object({ amount_to_capture: zAmount().optional() }).strict();
const CancelIntent = z
  .object({
    cancellation_reason: z.enum(['duplicate', 'fraudulent', 'requested_by_customer', 'abandoned']).optional(),
  })
  .strict();
const RefundReason = z.enum(['duplicate', 'fraudulent', 'requested_by_customer']);
export const CreateRefund = z
  .object({
    payment_intent: zId,
    amount: zAmount().pipe(z.number().min(1)).optional(),
    reason: RefundReason.optional(),
  })
  .strict();
export const IntentListQuery = pageQuery.extend({ customer: zId.optional() }).strict();
const RefundIntent = z
  .object({ amount: zAmount().pipe(z.number().min(1)).optional(), reason: RefundReason.optional() })
  .strict();

/** Payment intents and refunds (spec §2.4: creation, authorization, capture, refund). */
export function paymentIntentsRouter(
  deps: { paymentIntents: PaymentIntentService; refunds: RefundService },
  docs: OperationDoc[],
): Router {
  const router = Router();
  const route = createRoutes(router, docs);
  const { paymentIntents, refunds } = deps;
  const tag = 'Payment Intents';

  route({
    method: 'post',
    path: '/v1/payment-intents',
    summary: 'Create a payment intent; confirm=true confirms it at once',
    tag,
    body: CreateIntent,
    response: PaymentIntentSchema,
    handler: async ({ body, scope }) => {
      const { currency: _currency, ...input } = body;
      return paymentIntents.create(scope, input);
    },
  });

  route({
    method: 'get',
    path: '/v1/payment-intents',
    summary: 'List payment intents, newest first',
    tag,
    query: IntentListQuery,
    response: listOf(PaymentIntentSchema),
    handler: async ({ query, scope }) => {
      const page = await paymentIntents.list(scope, {
        ...pageOptions(query),
        ...(query.customer && { customerId: query.customer }),
      });
      return listResponse('/v1/payment-intents', page.data, page.hasMore);
    },
  });

  route({
    method: 'get',
    path: '/v1/payment-intents/:id',
    summary: 'Retrieve a payment intent (one waiting for 3-D Secure is brought up to date)',
    tag,
    response: PaymentIntentSchema,
    handler: ({ params, scope }) => paymentIntents.retrieve(scope, params.id!),
  });

  route({
    method: 'post',
    path: '/v1/payment-intents/:id/confirm',
    summary: 'Confirm with a payment method (or, in test mode, a test card)',
    tag,
    body: ConfirmIntent,
    response: PaymentIntentSchema,
    handler: ({ params, body, scope }) => paymentIntents.confirm(scope, params.id!, body),
  });

  route({
    method: 'post',
    path: '/v1/payment-intents/:id/capture',
    summary: 'Capture an authorized payment (manual capture), all or part of it, once',
    tag,
    body: CaptureIntent,
    response: PaymentIntentSchema,
    handler: ({ params, body, scope }) => paymentIntents.capture(scope, params.id!, body.amount_to_capture),
  });

  route({
    method: 'post',
    path: '/v1/payment-intents/:id/cancel',
    summary: 'Cancel a payment intent that is not yet captured; an authorization is released',
    tag,
    body: CancelIntent,
    response: PaymentIntentSchema,
    handler: ({ params, body, scope }) =>
      paymentIntents.cancel(scope, params.id!, body.cancellation_reason ?? null),
  });

  route({
    method: 'post',
    path: '/v1/payment-intents/:id/refund',
    summary: 'Refund all or part of a captured payment',
    tag,
    body: RefundIntent,
    response: RefundSchema,
    handler: ({ params, body, scope, req }) =>
      refunds.refundPaymentIntent(scope, params.id!, { ...body, idempotencyKey: req.get('idempotency-key') }),
  });

  route({
    method: 'post',
    path: '/v1/refunds',
    summary: 'Refund all or part of a captured payment; never more than was captured',
    tag: 'Refunds',
    body: CreateRefund,
    response: RefundSchema,
    handler: ({ body, scope, req }) => {
      const { payment_intent, ...input } = body;
      return refunds.create(scope, payment_intent, { ...input, idempotencyKey: req.get('idempotency-key') });
    },
  });

  route({
    method: 'get',
    path: '/v1/refunds',
    summary: 'List refunds, newest first',
    tag: 'Refunds',
    query: pageQuery.extend({ payment_intent: zId.optional() }).strict(),
    response: listOf(RefundSchema),
    handler: async ({ query, scope }) => {
      const page = await refunds.list(scope, {
        ...pageOptions(query),
        ...(query.payment_intent && { paymentIntentId: query.payment_intent }),
      });
      return listResponse('/v1/refunds', page.data, page.hasMore);
    },
  });

  route({
    method: 'get',
    path: '/v1/refunds/:id',
    summary: 'Retrieve a refund',
    tag: 'Refunds',
    response: RefundSchema,
    handler: ({ params, scope }) => refunds.retrieve(scope, params.id!),
  });

  return router;
}
