import type { DeliveryStatus, PickupPoint } from '../../domain/delivery';
import { carrierRequest, type CarrierApi, type CarrierParcel } from './carrier-api';

/**
 * Pósturinn's web shipping API (`https://api.mappan.is/wscm/v1`, test `https://apitest.mappan.is`):
 * `GET postboxes` (`{postboxes: [{postboxId, …}]}`, delivery service DPO), `GET parcelpoints`
 * (`{parcelPoints: [{parcelPointId, …}]}`, DPT), `POST shipments/create`, `GET shipments/{id}`,
 * `POST shipments/{id}/cancel`; the key in `x-api-key`. Wire names kept.
 */
interface PosturinnPoint {
  name: string;
  address: string;
  postcode: string;
  town: string;
  latitude: number;
  longitude: number;
  openingHours: string[];
}
export type PosturinnPostbox = PosturinnPoint & { postboxId: string };
export type PosturinnParcelPoint = PosturinnPoint & { parcelPointId: string };

export interface PosturinnShipment {
  shipmentId: string;
  barcode: string;
  senderReference: string;
  status: 'REGISTERED' | 'IN_TRANSIT' | 'READY_FOR_PICKUP' | 'DELIVERED' | 'RETURNED' | 'CANCELLED';
}

const STATUS: Record<PosturinnShipment['status'], DeliveryStatus> = {
  REGISTERED: 'booked',
  IN_TRANSIT: 'in_transit',
  READY_FOR_PICKUP: 'ready_for_pickup',
  DELIVERED: 'collected',
  RETURNED: 'returned',
  CANCELLED: 'canceled',
};

const parcelOf = (s: PosturinnShipment): CarrierParcel => ({
  orderId: s.shipmentId,
  trackingNumber: s.barcode,
  status: STATUS[s.status],
});

const pointOf = (p: PosturinnPoint, id: string, kind: 'postbox' | 'parcel_point'): PickupPoint => ({
  id: `posturinn:${id}`,
  carrier: 'posturinn',
  kind,
  name: p.name,
  address: { line1: p.address, postal_code: p.postcode, city: p.town },
  latitude: p.latitude,
  longitude: p.longitude,
  opening_hours: p.openingHours,
});

/** A Pósturinn client at `baseUrl` (ending in `/wscm/v1`), authenticating with `apiKey`. */
export function posturinnClient(baseUrl: string, apiKey: string): CarrierApi {
  const headers = { 'x-api-key': apiKey };
  const at = (path: string) => `${baseUrl.replace(/\/$/, '')}/${path}`;
  return {
    carrier: 'posturinn',
    async pickupPoints() {
      const [boxes, points] = await Promise.all([
        carrierRequest<{ postboxes: PosturinnPostbox[] }>(at('postboxes'), { method: 'GET', headers }),
        carrierRequest<{ parcelPoints: PosturinnParcelPoint[] }>(at('parcelpoints'), {
          method: 'GET',
          headers,
        }),
      ]);
      return [
        ...boxes.postboxes.map((b) => pointOf(b, b.postboxId, 'postbox')),
        ...points.parcelPoints.map((p) => pointOf(p, p.parcelPointId, 'parcel_point')),
      ];
    },
    async book(req) {
      const shipment = await carrierRequest<PosturinnShipment>(at('shipments/create'), {
        method: 'POST',
        headers,
        json: {
          senderReference: req.reference,
          deliveryServiceId: req.kind === 'postbox' ? 'DPO' : 'DPT',
          ...(req.kind === 'postbox' ? { postboxId: req.pointId } : { parcelPointId: req.pointId }),
          recipient: {
            name: req.recipient.name,
            email: req.recipient.email ?? '',
            mobilePhone: req.recipient.phone ?? '',
          },
          contents: req.description,
        },
      });
      return parcelOf(shipment);
    },
    async parcel(orderId) {
      return parcelOf(
        await carrierRequest<PosturinnShipment>(at(`shipments/${encodeURIComponent(orderId)}`), {
          method: 'GET',
          headers,
        }),
      );
    },
    async cancel(orderId) {
      return parcelOf(
        await carrierRequest<PosturinnShipment>(at(`shipments/${encodeURIComponent(orderId)}/cancel`), {
          method: 'POST',
          headers,
        }),
      );
    },
  };
}
