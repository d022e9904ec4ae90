import { Router } from 'express';
import { z } from 'zod';
import type { Knex } from '../../db/knex';
import type { Scope } from '../../domain/scope';
import type { OperationDoc } from '../openapi';
import type { WebhookDispatcher } from '../../engine/webhook-dispatch';
import type { PaymentService } from '../../services/payments';
import { presentPaymentIntent, presentRefund } from '../../services/payments';
import { createCustomerRepository } from '../../db/customers';
import { InvalidRequestError } from '../../domain/errors';
import { createRoutes } from '../route';
import { listOf, listResponse } from '../list';
import { zBool, zInt } from '../validation';
import { pageOptions, pageQuery, zAmount, zCurrency, zId, zLine, zStoredMetadata } from '../fields';
import { findOr404, missingReference } from '../../services/lookup';

/** Raw card details, accepted in test mode only (test card numbers; README "Test cards"). */
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
const CreateRefund = z
  .object({
    payment_intent: zId,
    amount: zAmount().pipe(z.number().min(1)).optional(),
    reason: RefundReason.optional(),
  })
  .strict();
const RefundIntent = z
  .object({ amount: zAmount().pipe(z.number().min(1)).optional(), reason: RefundReason.optional() })
  .strict();

export const PaymentIntentSchema = z.object({
  id: z.string(),
  object: z.literal('payment_intent'),
  livemode: z.boolean(),
  amount: z.number(),
  amount_capturable: z.number(),
  amount_received: z.number(),
  amount_refunded: z.number(),
  currency: z.literal('ISK'),
  status: z.enum([
    'requires_payment_method',
    'requires_action',
    'requires_capture',
    'processing',
    'succeeded',
    'canceled',
  ]),
  capture_method: z.enum(['automatic', 'manual']),
  customer: z.string().nullable(),
  payment_method: z.string().nullable(),
  payment_method_details: z.unknown().nullable(),
  checkout_session: z.string().nullable(),
  description: z.string().nullable(),
  fee_amount: z.number().nullable().describe('Service fee (1.5 % online card), set at capture'),
  net_amount: z.number().nullable().describe('amount_received − fee_amount'),
  last_payment_error: z
    .object({ code: z.string(), decline_code: z.string().nullable(), message: z.string() })
    .nullable(),
  next_action: z.unknown().nullable(),
  canceled_at: z.number().nullable(),
  cancellation_reason: z.string().nullable(),
  created_at: z.number(),
  metadata: z.record(z.string(), z.string()),
});

const RefundSchema = z.object({
  id: z.string(),
  object: z.literal('refund'),
  livemode: z.boolean(),
  payment_intent: z.string(),
  amount: z.number(),
  currency: z.literal('ISK'),
  status: z.enum(['succeeded', 'failed']),
  reason: z.string().nullable(),
  created_at: z.number(),
});

/** Payment intents and refunds (spec §2.4: creation, authorization, capture, refund). */
export function paymentIntentsRouter(
  deps: { knex: Knex; payments: PaymentService; dispatcher: WebhookDispatcher; publicBaseUrl: string },
  docs: OperationDoc[],
): Router {
  const router = Router();
  const route = createRoutes(router, docs);
  const { intents, methods } = deps.payments;
  const customers = createCustomerRepository(deps.knex);
  const tag = 'Payment Intents';

  const find = (scope: Scope, id: string) =>
    findOr404(
      'payment_intent',
      scope,
      id,
      () => intents.findById(scope, id),
      () => intents.existsInOtherMode(scope, id),
    );
  const present = async (scope: Scope, row: Parameters<typeof presentPaymentIntent>[0]) =>
    presentPaymentIntent(
      row,
      row.payment_method_id ? await methods.findById(scope, row.payment_method_id) : null,
    );

  /** Runs a change on the locked intent in one transaction, then wakes webhook channels. */
  async function change<T>(
    scope: Scope,
    id: string,
    work: (
      row: Parameters<typeof presentPaymentIntent>[0],
      trx: Knex.Transaction,
      wake: string[],
    ) => Promise<T>,
  ) {
    await find(scope, id);
    const wake: string[] = [];
    const result = await deps.knex.transaction(async (trx) =>
      work((await intents.lock(scope, id, trx))!, trx, wake),
    );
    await deps.dispatcher.wake(wake);
    return result;
  }

  async function paymentMethodFor(
    scope: Scope,
    body: { payment_method?: string | undefined; card?: z.output<typeof zTestCard> | undefined },
    customerId: string | null,
  ) {
    if (body.card) return deps.payments.tokenizeCard(scope, body.card, null);
    if (body.payment_method) {
      const pm = await methods.findById(scope, body.payment_method);
      if (!pm || pm.detached_at)
        throw missingReference('payment_method', body.payment_method, 'payment_method');
      if (pm.customer_id !== null && pm.customer_id !== customerId)
        throw new InvalidRequestError('The payment method belongs to another customer', {
          code: 'parameter_invalid',
          param: 'payment_method',
        });
      return pm;
    }
    return null;
  }

  async function confirm(scope: Scope, id: string, body: z.output<typeof ConfirmIntent>) {
    const current = await find(scope, id);
    const pm =
      (await paymentMethodFor(scope, body, current.customer_id)) ??
      (current.payment_method_id ? await methods.findById(scope, current.payment_method_id) : null);
    if (!pm)
      throw new InvalidRequestError('A payment_method or card is required to confirm', {
        code: 'parameter_missing',
        param: 'payment_method',
      });
    return change(scope, id, async (row, trx, wake) => {
      if (row.status !== 'requires_payment_method')
        throw new InvalidRequestError(
          `This PaymentIntent cannot be confirmed because it has a status of ${row.status}`,
          {
            status: 409,
            code: 'payment_intent_unexpected_state',
          },
        );
      const returnUrl = body.return_url ?? `${deps.publicBaseUrl}/v1`;
      const outcome = await deps.payments.attempt(scope, row, pm, returnUrl, trx, wake);
      if (outcome.kind === 'authorized' && row.capture_method === 'automatic')
        return deps.payments.capture(scope, outcome.intent, outcome.intent.amount, trx, wake);
      return outcome.intent;
    });
  }

  route({
    method: 'post',
    path: '/v1/payment-intents',
    summary: 'Create a payment intent; confirm=true confirms it at once',
    tag,
    body: CreateIntent,
    response: PaymentIntentSchema,
    handler: async ({ body, scope }) => {
      if (body.customer && !(await customers.findById(scope, body.customer)))
        throw missingReference('customer', body.customer, 'customer');
      const pm = await paymentMethodFor(scope, body, body.customer ?? null);
      const row = await intents.create(scope, {
        amount: body.amount,
        captureMethod: body.capture_method,
        customerId: body.customer ?? null,
        paymentMethodId: pm?.id ?? null,
        description: body.description ?? null,
        ...(body.metadata && { metadata: body.metadata }),
      });
      if (!body.confirm) return present(scope, row);
      return present(
        scope,
        await confirm(scope, row.id, { ...(body.return_url && { return_url: body.return_url }) }),
      );
    },
  });

  route({
    method: 'get',
    path: '/v1/payment-intents',
    summary: 'List payment intents, newest first',
    tag,
    query: pageQuery.extend({ customer: zId.optional() }).strict(),
    response: listOf(PaymentIntentSchema),
    handler: async ({ query, scope }) => {
      const page = await intents.list(scope, {
        ...pageOptions(query),
        ...(query.customer && { customerId: query.customer }),
      });
      return listResponse(
        '/v1/payment-intents',
        await Promise.all(page.data.map((r) => present(scope, r))),
        page.hasMore,
      );
    },
  });

  route({
    method: 'get',
    path: '/v1/payment-intents/:id',
    summary: 'Retrieve a payment intent (one waiting for 3-D Secure is brought up to date)',
    tag,
    response: PaymentIntentSchema,
    handler: async ({ params, scope }) => {
      const row = await find(scope, params.id!);
      if (row.status !== 'requires_action') return present(scope, row);
      return present(
        scope,
        await change(scope, row.id, async (locked, trx, wake) => {
          const outcome = await deps.payments.resume(scope, locked, trx, wake);
          if (outcome?.kind === 'authorized' && locked.capture_method === 'automatic')
            return deps.payments.capture(scope, outcome.intent, outcome.intent.amount, trx, wake);
          return outcome?.intent ?? locked;
        }),
      );
    },
  });

  route({
    method: 'post',
    path: '/v1/payment-intents/:id/confirm',
    summary: 'Confirm with a payment method (or, in test mode, a test card)',
    tag,
    body: ConfirmIntent,
    response: PaymentIntentSchema,
    handler: async ({ params, body, scope }) => present(scope, await confirm(scope, params.id!, body)),
  });

  route({
    method: 'post',
    path: '/v1/payment-intents/:id/capture',
    summary: 'Capture an authorized payment (manual capture), all or part of it, once',
    tag,
    body: CaptureIntent,
    response: PaymentIntentSchema,
    handler: async ({ params, body, scope }) =>
      present(
        scope,
        await change(scope, params.id!, (row, trx, wake) =>
          deps.payments.capture(scope, row, body.amount_to_capture ?? row.amount, trx, wake),
        ),
      ),
  });

  route({
    method: 'post',
    path: '/v1/payment-intents/:id/cancel',
    summary: 'Cancel a payment intent that is not yet captured; an authorization is released',
    tag,
    body: CancelIntent,
    response: PaymentIntentSchema,
    handler: async ({ params, body, scope }) =>
      present(
        scope,
        await change(scope, params.id!, (row, trx) =>
          deps.payments.cancel(scope, row, body.cancellation_reason ?? null, trx),
        ),
      ),
  });

  async function refund(
    scope: Scope,
    id: string,
    body: { amount?: number | undefined; reason?: z.output<typeof RefundReason> | undefined },
    key: string | undefined,
  ) {
    const wake: string[] = [];
    const row = await deps.knex.transaction((trx) =>
      deps.payments.refund(
        scope,
        id,
        {
          ...(body.amount !== undefined && { amount: body.amount }),
          ...(body.reason && { reason: body.reason }),
          ...(key !== undefined && { idempotencyKey: key }),
        },
        trx,
        wake,
      ),
    );
    await deps.dispatcher.wake(wake);
    return presentRefund(row);
  }

  route({
    method: 'post',
    path: '/v1/payment-intents/:id/refund',
    summary: 'Refund all or part of a captured payment',
    tag,
    body: RefundIntent,
    response: RefundSchema,
    handler: async ({ params, body, scope, req }) => {
      await find(scope, params.id!);
      return refund(scope, params.id!, body, req.get('idempotency-key'));
    },
  });

  route({
    method: 'post',
    path: '/v1/refunds',
    summary: 'Refund all or part of a captured payment; never more than was captured',
    tag: 'Refunds',
    body: CreateRefund,
    response: RefundSchema,
    handler: async ({ body, scope, req }) =>
      refund(scope, body.payment_intent, body, req.get('idempotency-key')),
  });

  route({
    method: 'get',
    path: '/v1/refunds',
    summary: 'List refunds, newest first',
    tag: 'Refunds',
    query: pageQuery.extend({ payment_intent: zId.optional() }).strict(),
    response: listOf(RefundSchema),
    handler: async ({ query, scope }) => {
      const page = await intents.listRefunds(scope, {
        ...pageOptions(query),
        ...(query.payment_intent && { paymentIntentId: query.payment_intent }),
      });
      return listResponse('/v1/refunds', page.data.map(presentRefund), page.hasMore);
    },
  });

  route({
    method: 'get',
    path: '/v1/refunds/:id',
    summary: 'Retrieve a refund',
    tag: 'Refunds',
    response: RefundSchema,
    handler: async ({ params, scope }) =>
      presentRefund(
        await findOr404(
          'refund',
          scope,
          params.id!,
          () => intents.findRefund(scope, params.id!),
          () => Promise.resolve(false),
        ),
      ),
  });

  return router;
}
