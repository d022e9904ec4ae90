import type { Knex } from '../../db/knex';
import type { Scope } from '../../domain/scope';
import type { PaymentIntentRow } from '../../db/payment-intents';
import { createPaymentMethodRepository } from '../../db/payment-methods';
import { createEventRepository } from '../../db/events';
import { presentPaymentIntent } from './payment-intent-object';

/** Records a payment intent event in the change's transaction; the channel ids to wake go to `wake`. */
export function createPaymentIntentEvents(knex: Knex) {
  const methods = createPaymentMethodRepository(knex);
  const events = createEventRepository(knex);

  /** `data` is the payment intent as the API presents it (`extra` adds the refund of a refund event). */
  async function emit(
    scope: Scope,
    type: string,
    row: PaymentIntentRow,
    trx: Knex.Transaction,
    wake: string[],
    extra = {},
  ) {
    const pm = row.payment_method_id ? await methods.findById(scope, row.payment_method_id, trx) : null;
    const recorded = await events.record(
      scope,
      { type, data: { ...presentPaymentIntent(row, pm), ...extra } },
      trx,
    );
    wake.push(...recorded.channelIds);
  }

  return { emit };
}
