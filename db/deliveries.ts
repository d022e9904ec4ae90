import type { Db } from './knex';
import type { Scope } from '../domain/scope';
import type { Carrier, DeliveryStatus, PickupPoint } from '../domain/delivery';
import { newId, ID_PREFIX } from '../domain/ids';
import { existsInOtherMode, type PageOptions } from './tenant';
import { pageByCreated } from './pagination';

export interface DeliveryRow {
  id: string;
  merchant_id: string;
  livemode: boolean;
  carrier: Carrier;
  status: DeliveryStatus;
  pickup_point: PickupPoint;
  checkout_session_id: string;
  recipient_name: string | null;
  recipient_email: string | null;
  recipient_phone: string | null;
  carrier_order_id: string | null;
  tracking_number: string | null;
  booked_at: Date | null;
  canceled_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export function createDeliveryRepository(db: Db) {
  return {
    /**
     * The session's delivery, created once: a second call (payment reported again) finds the first,
     * the unique key on the session being the last line of defence.
     */
    async createForSession(
      scope: Scope,
      input: {
        sessionId: string;
        point: PickupPoint;
        recipient: { name: string | null; email: string | null; phone: string | null };
      },
      trx: Db = db,
    ): Promise<{ row: DeliveryRow; created: boolean }> {
      const [row] = await trx<DeliveryRow>('deliveries')
        .insert({
          id: newId(ID_PREFIX.delivery),
          merchant_id: scope.merchantId,
          livemode: scope.livemode,
          carrier: input.point.carrier,
          status: 'pending',
          pickup_point: JSON.stringify(input.point) as never,
          checkout_session_id: input.sessionId,
          recipient_name: input.recipient.name,
          recipient_email: input.recipient.email,
          recipient_phone: input.recipient.phone,
        })
        .onConflict('checkout_session_id')
        .ignore()
        .returning('*');
      if (row) return { row, created: true };
      const existing = await trx<DeliveryRow>('deliveries')
        .where({
          checkout_session_id: input.sessionId,
          merchant_id: scope.merchantId,
          livemode: scope.livemode,
        })
        .first();
      return { row: existing!, created: false };
    },

    async find(scope: Scope, id: string, trx: Db = db): Promise<DeliveryRow | undefined> {
      return trx<DeliveryRow>('deliveries')
        .where({ id, merchant_id: scope.merchantId, livemode: scope.livemode })
        .first();
    },

    async lock(scope: Scope, id: string, trx: Db): Promise<DeliveryRow | undefined> {
      return trx<DeliveryRow>('deliveries')
        .where({ id, merchant_id: scope.merchantId, livemode: scope.livemode })
        .forUpdate()
        .first();
    },

    async update(id: string, values: Partial<DeliveryRow>, trx: Db = db): Promise<DeliveryRow> {
      const [row] = await trx<DeliveryRow>('deliveries')
        .where({ id })
        .update({ ...values, updated_at: trx.fn.now() as never })
        .returning('*');
      return row!;
    },

    async list(
      scope: Scope,
      opts: PageOptions & { checkoutSessionId?: string | undefined; status?: DeliveryStatus | undefined },
      trx: Db = db,
    ): Promise<{ data: DeliveryRow[]; hasMore: boolean }> {
      const query = trx('deliveries').where({ merchant_id: scope.merchantId, livemode: scope.livemode });
      if (opts.checkoutSessionId) query.where({ checkout_session_id: opts.checkoutSessionId });
      if (opts.status) query.where({ status: opts.status });
      return pageByCreated<DeliveryRow>(query, 'deliveries', scope, opts);
    },

    existsInOtherMode(scope: Scope, id: string, trx: Db = db) {
      return existsInOtherMode(trx, 'deliveries', scope, id);
    },
  };
}

export type DeliveryRepository = ReturnType<typeof createDeliveryRepository>;
