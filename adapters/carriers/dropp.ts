import type { DeliveryStatus, PickupPoint } from '../../domain/delivery';
import { carrierRequest, type CarrierApi, type CarrierParcel } from './carrier-api';

/**
 * Dropp's API (`https://api.dropp.is/dropp/api/v1/`, stage `https://stage.dropp.is/dropp/api/v1/`):
 * `GET dropp/locations`, `POST orders` with `locationId`, `barcode`, `products`, `customer`,
 * `GET orders/{id}`, `DELETE orders/{id}`; HTTP Basic with the store's API key. Wire names kept.
 */
export interface DroppLocation {
  id: string;
  name: string;
  address: string;
  zipcode: string;
  city: string;
  latitude: number;
  longitude: number;
  openingHours: string[];
}

export interface DroppOrder {
  id: string;
  barcode: string;
  locationId: string;
  /** Dropp's order states. */
  status: 'initial' | 'transit' | 'consignment' | 'delivered' | 'returned' | 'cancelled';
}

const STATUS: Record<DroppOrder['status'], DeliveryStatus> = {
  initial: 'booked',
  transit: 'in_transit',
  consignment: 'ready_for_pickup',
  delivered: 'collected',
  returned: 'returned',
  cancelled: 'canceled',
};

const parcelOf = (o: DroppOrder): CarrierParcel => ({
  orderId: o.id,
  trackingNumber: o.barcode,
  status: STATUS[o.status],
});

/** A Dropp client at `baseUrl` (ending in `/dropp/api/v1`), authenticating with `apiKey`. */
export function droppClient(baseUrl: string, apiKey: string): CarrierApi {
  const headers = { authorization: `Basic ${apiKey}` };
  const at = (path: string) => `${baseUrl.replace(/\/$/, '')}/${path}`;
  return {
    carrier: 'dropp',
    async pickupPoints(): Promise<PickupPoint[]> {
      const body = await carrierRequest<{ locations: DroppLocation[] }>(at('dropp/locations'), {
        method: 'GET',
        headers,
      });
      return body.locations.map((l) => ({
        id: `dropp:${l.id}`,
        carrier: 'dropp',
        kind: 'location',
        name: l.name,
        address: { line1: l.address, postal_code: l.zipcode, city: l.city },
        latitude: l.latitude,
        longitude: l.longitude,
        opening_hours: l.openingHours,
      }));
    },
    async book(req) {
      const order = await carrierRequest<DroppOrder>(at('orders'), {
        method: 'POST',
        headers,
        json: {
          locationId: req.pointId,
          // Skil's delivery id as the barcode: Dropp answers the same order to the same barcode.
          barcode: req.reference,
          products: [{ name: req.description, quantity: 1 }],
          customer: {
            name: req.recipient.name,
            emailAddress: req.recipient.email ?? '',
            phoneNumber: req.recipient.phone ?? '',
          },
        },
      });
      return parcelOf(order);
    },
    async parcel(orderId) {
      return parcelOf(
        await carrierRequest<DroppOrder>(at(`orders/${encodeURIComponent(orderId)}`), {
          method: 'GET',
          headers,
        }),
      );
    },
    async cancel(orderId) {
      return parcelOf(
        await carrierRequest<DroppOrder>(at(`orders/${encodeURIComponent(orderId)}`), {
          method: 'DELETE',
          headers,
        }),
      );
    },
  };
}
