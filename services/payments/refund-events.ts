import type { Knex } from '../../db/knex';
import type { RefundRow } from '../../db/payment-intents';
import { createEventRepository } from '../../db/events';
import { presentRefund } from './refund-object';

/**
 * `refund.updated` (decision 0101): a refund's status changed after it was created, as when the bank
 * books a krafa refund's transfer. `data` is the refund as `GET /v1/refunds/{id}` presents it.
 * Recorded in the change's transaction; returns the channel ids to wake after commit.
 */
export async function recordRefundUpdated(trx: Knex.Transaction, refund: RefundRow): Promise<string[]> {
  const recorded = await createEventRepository(trx).record(
    { merchantId: refund.merchant_id, livemode: refund.livemode },
    { type: 'refund.updated', data: presentRefund(refund) },
    trx,
  );
  return recorded.channelIds;
}
