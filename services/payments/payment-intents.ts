import type { Knex } from '../../db/knex';
import type { Scope } from '../../domain/scope';
import type { WebhookDispatcher } from '../../engine/webhook-dispatch';
import type { PageOptions } from '../../db/tenant';
import type { PaymentIntentFilter, PaymentIntentRow } from '../../db/payment-intents';
import { createCustomerRepository } from '../../db/customers';
import { InvalidRequestError } from '../../domain/errors';
import { findOr404, findReference, missingReference } from '../lookup';
import type { PaymentService } from './card-payments';
import { presentPaymentIntent } from './payment-intent-object';

/** Raw test card details; tokenized at once (test mode only). */
export interface TestCardInput {
  number: string;
  exp_month: number;
  exp_year: number;
  cvc: string;
}

/** How a payment intent is to be paid: a saved payment method, or (test mode) a card. */
export interface PaymentMethodChoice {
  payment_method?: string | undefined;
  card?: TestCardInput | undefined;
}

export interface ConfirmInput extends PaymentMethodChoice {
  return_url?: string | undefined;
}

export interface CreatePaymentIntentInput extends ConfirmInput {
  amount: number;
  capture_method: 'automatic' | 'manual';
  customer?: string | undefined;
  confirm: boolean;
  description?: string | undefined;
  metadata?: Record<string, string> | undefined;
}

/**
 * Payment intents through the API (spec §2.4: creation, authorization, capture, cancellation).
 * Each change runs on the locked intent in one transaction; webhook channels are woken after it.
 */
export function createPaymentIntentService(deps: {
  knex: Knex;
  payments: PaymentService;
  dispatcher: WebhookDispatcher;
  publicBaseUrl: string;
}) {
  const { intents, methods } = deps.payments;
  const customers = createCustomerRepository(deps.knex);

  const find = (scope: Scope, id: string) =>
    findOr404(
      'payment_intent',
      scope,
      id,
      () => intents.findById(scope, id),
      () => intents.existsInOtherMode(scope, id),
    );
  const present = async (scope: Scope, row: PaymentIntentRow) =>
    presentPaymentIntent(
      row,
      row.payment_method_id ? await methods.findById(scope, row.payment_method_id) : null,
    );

  /** Runs a change on the locked intent in one transaction, then wakes webhook channels. */
  async function change<T>(
    scope: Scope,
    id: string,
    work: (row: PaymentIntentRow, trx: Knex.Transaction, wake: string[]) => Promise<T>,
  ) {
    await find(scope, id);
    const wake: string[] = [];
    const result = await deps.knex.transaction(async (trx) =>
      work((await intents.lock(scope, id, trx))!, trx, wake),
    );
    await deps.dispatcher.wake(wake);
    return result;
  }

  async function paymentMethodFor(scope: Scope, body: PaymentMethodChoice, customerId: string | null) {
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

  async function confirm(scope: Scope, id: string, body: ConfirmInput) {
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

  return {
    /** Creates an intent; `confirm` confirms it at once. */
    async create(scope: Scope, body: CreatePaymentIntentInput) {
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

    async list(scope: Scope, opts: PageOptions & PaymentIntentFilter) {
      const { customerId } = opts;
      if (customerId !== undefined)
        await findReference('customer', customerId, 'customer', () => customers.findById(scope, customerId));
      const page = await intents.list(scope, opts);
      return { data: await Promise.all(page.data.map((r) => present(scope, r))), hasMore: page.hasMore };
    },

    /** One waiting for 3-D Secure is brought up to date first. */
    async retrieve(scope: Scope, id: string) {
      const row = await find(scope, id);
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

    async confirm(scope: Scope, id: string, body: ConfirmInput) {
      return present(scope, await confirm(scope, id, body));
    },

    /** Captures an authorized payment (manual capture), all of it or `amount`, once. */
    async capture(scope: Scope, id: string, amount: number | undefined) {
      return present(
        scope,
        await change(scope, id, (row, trx, wake) =>
          deps.payments.capture(scope, row, amount ?? row.amount, trx, wake),
        ),
      );
    },

    /** Cancels an intent not yet captured; an authorization is released. */
    async cancel(scope: Scope, id: string, reason: string | null) {
      return present(
        scope,
        await change(scope, id, (row, trx) => deps.payments.cancel(scope, row, reason, trx)),
      );
    },
  };
}

export type PaymentIntentService = ReturnType<typeof createPaymentIntentService>;
