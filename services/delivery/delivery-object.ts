import { z } from 'zod';
import type { DeliveryRow } from '../../db/deliveries';
import {
  CARRIERS,
  CARRIER_NAMES,
  DELIVERY_STATUSES,
  type Carrier,
  type PickupPoint,
} from '../../domain/delivery';
import { unix } from '../../domain/unix-time';

export const PickupPointSchema = z.object({
  id: z.string().describe('`<carrier>:<the carrier’s own id>`'),
  object: z.literal('pickup_point'),
  carrier: z.enum(CARRIERS),
  kind: z.enum(['location', 'postbox', 'parcel_point']),
  name: z.string(),
  address: z.object({ line1: z.string(), postal_code: z.string(), city: z.string() }),
  latitude: z.number(),
  longitude: z.number(),
  opening_hours: z.array(z.string()),
});

export const PickupPointResultSchema = PickupPointSchema.extend({
  distance_m: z.number().int().nullable().describe('Metres from latitude/longitude, when they were given'),
});

export function presentPickupPoint(p: PickupPoint) {
  return {
    id: p.id,
    object: 'pickup_point' as const,
    carrier: p.carrier,
    kind: p.kind,
    name: p.name,
    address: p.address,
    latitude: p.latitude,
    longitude: p.longitude,
    opening_hours: p.opening_hours,
  };
}

export const CarrierSchema = z.object({
  id: z.enum(CARRIERS),
  object: z.literal('delivery.carrier'),
  name: z.string(),
  livemode: z.boolean(),
  active: z.boolean().describe('Pickup points of this carrier are offered in this environment'),
  available: z.boolean().describe('The carrier can be switched on in this environment'),
});

export function presentCarrier(id: Carrier, livemode: boolean, active: boolean, available: boolean) {
  return { id, object: 'delivery.carrier' as const, name: CARRIER_NAMES[id], livemode, active, available };
}

export const DeliverySchema = z.object({
  id: z.string().regex(/^dlv_/),
  object: z.literal('delivery'),
  livemode: z.boolean(),
  carrier: z.enum(CARRIERS),
  status: z.enum(DELIVERY_STATUSES),
  pickup_point: PickupPointSchema,
  checkout_session: z.string(),
  recipient: z.object({
    name: z.string().nullable(),
    email: z.string().nullable(),
    phone: z.string().nullable(),
  }),
  carrier_order_id: z.string().nullable(),
  tracking_number: z.string().nullable(),
  booked_at: z.number().nullable(),
  canceled_at: z.number().nullable(),
  created_at: z.number(),
  updated_at: z.number(),
});

export type DeliveryObject = z.output<typeof DeliverySchema>;

/** The delivery as the API, its events and the dashboard show it. */
export function presentDelivery(row: DeliveryRow): DeliveryObject {
  return {
    id: row.id,
    object: 'delivery',
    livemode: row.livemode,
    carrier: row.carrier,
    status: row.status,
    pickup_point: presentPickupPoint(row.pickup_point),
    checkout_session: row.checkout_session_id,
    recipient: { name: row.recipient_name, email: row.recipient_email, phone: row.recipient_phone },
    carrier_order_id: row.carrier_order_id,
    tracking_number: row.tracking_number,
    booked_at: unix(row.booked_at),
    canceled_at: unix(row.canceled_at),
    created_at: unix(row.created_at),
    updated_at: unix(row.updated_at),
  };
}
