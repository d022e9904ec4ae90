import type { Knex } from '../../db/knex';
import type { Scope } from '../../domain/scope';
import { createPaymentIntentRepository, type PaymentIntentRow } from '../../db/payment-intents';
import { createPaymentMethodRepository } from '../../db/payment-methods';
import { createEventRepository } from '../../db/events';
import { presentPaymentIntent } from './payment-intent-object';

/**
 * Payment intents presented for a batch's events (renewals charged set-based), in two queries:
 * the intents and their payment methods; keyed by id.
 */
export async function presentPaymentIntentsById(knex: Knex, ids: readonly string[], trx: Knex.Transaction) {
  const rows = await createPaymentIntentRepository(knex).findByIds(ids, trx);
  const pmIds = [...new Set(rows.flatMap((r) => (r.payment_method_id ? [r.payment_method_id] : [])))];
  const pms = new Map(
    (await createPaymentMethodRepository(knex).findByIds(pmIds, trx)).map((pm) => [pm.id, pm]),
  );
  return new Map(
    rows.map((r) => [
      r.id,
      presentPaymentIntent(r, r.payment_method_id ? (pms.get(r.payment_method_id) ?? null) : null),
    ]),
  );
}

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
