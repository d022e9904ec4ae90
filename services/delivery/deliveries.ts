import type { Knex } from '../../db/knex';
import type { Scope } from '../../domain/scope';
import type { WebhookDispatcher } from '../../engine/webhook-dispatch';
import { createDeliveryRepository, type DeliveryRow } from '../../db/deliveries';
import { createEventRepository } from '../../db/events';
import { CarrierRefusal, type CarrierParcel } from '../../adapters/carriers/carrier-api';
import { DELIVERY_EVENTS, isCancelable, pathTo, type DeliveryStatus } from '../../domain/delivery';
import { ConflictError, InvalidRequestError, ServiceUnavailableError } from '../../domain/errors';
import { findOr404, findReference, type PageOptions } from '../lookup';
import { createCheckoutSessionRepository } from '../../db/checkout-sessions';
import type { CarrierService } from './carriers';
import { presentDelivery } from './delivery-object';

/**
 * Deliveries to pickup points: booked with the carrier once the session is paid (decision 0134), moved
 * on as the carrier reports, canceled while the carrier does not have the parcel yet. Every status
 * change is written with its event in one transaction (decision 0133).
 */
export function createDeliveryService(deps: {
  knex: Knex;
  carriers: CarrierService;
  dispatcher: WebhookDispatcher;
  /** The simulated carriers' courier side, for the test helper; null without them. */
  simulatorUrl?: string | null;
}) {
  const deliveries = createDeliveryRepository(deps.knex);
  const events = createEventRepository(deps.knex);
  const sessions = createCheckoutSessionRepository(deps.knex);

  const find = (scope: Scope, id: string) =>
    findOr404(
      'delivery',
      scope,
      id,
      () => deliveries.find(scope, id),
      () => deliveries.existsInOtherMode(scope, id),
    );

  /** Applies what the carrier says under the row lock, emitting one event per status passed. */
  async function apply(scope: Scope, id: string, parcel: CarrierParcel | null, to: DeliveryStatus) {
    const wake: string[] = [];
    const row = await deps.knex.transaction(async (trx) => {
      let d = (await deliveries.lock(scope, id, trx))!;
      for (const status of pathTo(d.status, to)) {
        d = await deliveries.update(
          d.id,
          {
            status,
            ...(parcel && { carrier_order_id: parcel.orderId, tracking_number: parcel.trackingNumber }),
            ...(status === 'booked' && { booked_at: new Date() }),
            ...(status === 'canceled' && { canceled_at: new Date() }),
          },
          trx,
        );
        const recorded = await events.record(
          scope,
          { type: DELIVERY_EVENTS[status as Exclude<DeliveryStatus, 'pending'>], data: presentDelivery(d) },
          trx,
        );
        wake.push(...recorded.channelIds);
      }
      return d;
    });
    await deps.dispatcher.wake(wake);
    return row;
  }

  async function sync(scope: Scope, row: DeliveryRow): Promise<DeliveryRow> {
    if (!row.carrier_order_id) return row;
    let parcel: CarrierParcel;
    try {
      parcel = await deps.carriers.api(scope, row.carrier).parcel(row.carrier_order_id);
    } catch {
      throw new ServiceUnavailableError(
        `${row.carrier} did not answer; try again shortly`,
        'carrier_unavailable',
      );
    }
    return apply(scope, row.id, parcel, parcel.status);
  }

  return {
    async retrieve(scope: Scope, id: string) {
      return presentDelivery(await find(scope, id));
    },

    async list(
      scope: Scope,
      opts: PageOptions & { checkoutSessionId?: string | undefined; status?: DeliveryStatus | undefined },
    ) {
      if (opts.checkoutSessionId !== undefined)
        await findReference('checkout session', opts.checkoutSessionId, 'checkout_session', () =>
          sessions.findById(scope, opts.checkoutSessionId!),
        );
      const page = await deliveries.list(scope, opts);
      return { data: page.data.map(presentDelivery), hasMore: page.hasMore };
    },

    /**
     * Books a pending delivery with its carrier. The delivery id is the booking's reference at the
     * carrier, so booking again after a crash answers the same parcel. A carrier that refuses
     * leaves the delivery pending with nothing booked; one that does not answer is tried again
     * by the next call.
     */
    async book(scope: Scope, id: string): Promise<DeliveryRow> {
      const d = (await deliveries.find(scope, id))!;
      if (d.status !== 'pending') return d;
      const point = d.pickup_point;
      const parcel = await deps.carriers.api(scope, d.carrier).book({
        reference: d.id,
        pointId: point.id.slice(point.id.indexOf(':') + 1),
        kind: point.kind,
        recipient: {
          name: d.recipient_name ?? 'Viðtakandi',
          email: d.recipient_email,
          phone: d.recipient_phone,
        },
        description: `Sending ${d.checkout_session_id}`,
      });
      return apply(scope, d.id, parcel, 'booked');
    },

    /** Cancels a delivery the carrier does not have yet (pending or booked); 409 after that. */
    async cancel(scope: Scope, id: string) {
      const d = await find(scope, id);
      if (!isCancelable(d.status))
        throw new ConflictError(
          `A delivery that is ${d.status} can no longer be canceled`,
          'delivery_not_cancelable',
        );
      let parcel: CarrierParcel | null = null;
      if (d.carrier_order_id) {
        try {
          parcel = await deps.carriers.api(scope, d.carrier).cancel(d.carrier_order_id);
        } catch (err) {
          if (err instanceof CarrierRefusal) {
            await sync(scope, d);
            throw new ConflictError(`${d.carrier} refused: ${err.message}`, 'delivery_not_cancelable');
          }
          throw new ServiceUnavailableError(
            `${d.carrier} did not answer; try again shortly`,
            'carrier_unavailable',
          );
        }
      }
      return presentDelivery(await apply(scope, d.id, parcel, 'canceled'));
    },

    /** Reads the parcel's state at the carrier and applies it. */
    async refresh(scope: Scope, id: string) {
      return presentDelivery(await sync(scope, await find(scope, id)));
    },

    /**
     * Test mode: the simulated carrier's courier moves the parcel one step on (or returns it), and
     * Skil reads the carrier at once, as its periodic check would.
     */
    async advanceForTest(scope: Scope, id: string, to: 'next' | 'returned') {
      if (scope.livemode)
        throw new InvalidRequestError('Test helpers need a test key', { code: 'livemode_mismatch' });
      const d = await find(scope, id);
      if (!deps.simulatorUrl)
        throw new ServiceUnavailableError('No simulated carrier is running', 'carrier_unavailable');
      if (!d.carrier_order_id)
        throw new ConflictError(
          `A delivery that is ${d.status} has no parcel to move`,
          'delivery_not_booked',
        );
      const res = await fetch(
        `${deps.simulatorUrl}/simulator/parcels/${encodeURIComponent(d.carrier_order_id)}/advance`,
        {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(to === 'returned' ? { to: 'returned' } : {}),
        },
      );
      if (res.status === 409)
        throw new ConflictError(`A delivery that is ${d.status} cannot move on`, 'delivery_not_movable');
      if (!res.ok)
        throw new ServiceUnavailableError('The simulated carrier did not answer', 'carrier_unavailable');
      return presentDelivery(await sync(scope, d));
    },
  };
}

export type DeliveryService = ReturnType<typeof createDeliveryService>;
