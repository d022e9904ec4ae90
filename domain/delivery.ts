/**
 * Pickup-point delivery (decisions 0132, 0133, 0136): the carriers, the statuses of a
 * delivery and the event each status change emits, and the search over a carrier's pickup points.
 */

export const CARRIERS = ['dropp', 'posturinn'] as const;
export type Carrier = (typeof CARRIERS)[number];

export const CARRIER_NAMES: Record<Carrier, string> = { dropp: 'Dropp', posturinn: 'Pósturinn' };

export function isCarrier(value: unknown): value is Carrier {
  return typeof value === 'string' && (CARRIERS as readonly string[]).includes(value);
}

/** The capability id of a carrier in `enabled_capabilities` (spec §2.3). */
export function deliveryCapability(carrier: Carrier): string {
  return `delivery.${carrier}`;
}

export const DELIVERY_STATUSES = [
  'pending',
  'booked',
  'in_transit',
  'ready_for_pickup',
  'collected',
  'returned',
  'canceled',
] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** The event each status is announced with (decision 0133); `pending` is not announced. */
export const DELIVERY_EVENTS = {
  booked: 'delivery.booked',
  in_transit: 'delivery.shipped',
  ready_for_pickup: 'delivery.arrived',
  collected: 'delivery.collected',
  returned: 'delivery.returned',
  canceled: 'delivery.canceled',
} as const satisfies Record<Exclude<DeliveryStatus, 'pending'>, string>;

/** Where each status may go next; a carrier's report that goes elsewhere is ignored. */
const NEXT: Record<DeliveryStatus, readonly DeliveryStatus[]> = {
  pending: ['booked', 'canceled'],
  booked: ['in_transit', 'ready_for_pickup', 'collected', 'returned', 'canceled'],
  in_transit: ['ready_for_pickup', 'collected', 'returned'],
  ready_for_pickup: ['collected', 'returned'],
  collected: [],
  returned: [],
  canceled: [],
};

/** Whether a delivery may move from one status to another (forward only). */
export function canMove(from: DeliveryStatus, to: DeliveryStatus): boolean {
  return NEXT[from].includes(to);
}

/** The statuses between two, in order, so a jump (booked → collected) still emits every event. */
export function pathTo(from: DeliveryStatus, to: DeliveryStatus): DeliveryStatus[] {
  if (!canMove(from, to)) return [];
  if (to === 'canceled' || to === 'returned') return [to];
  const order: DeliveryStatus[] = ['booked', 'in_transit', 'ready_for_pickup', 'collected'];
  return order.slice(order.indexOf(from) + 1, order.indexOf(to) + 1);
}

/** A delivery may be canceled until the carrier has the parcel. */
export function isCancelable(status: DeliveryStatus): boolean {
  return status === 'pending' || status === 'booked';
}

/** A pickup point as Skil shows it, whichever carrier it belongs to. */
export interface PickupPoint {
  /** `<carrier>:<carrier's own id>`, unique across carriers. */
  id: string;
  carrier: Carrier;
  /** The carrier's kind of point: Dropp `location`; Pósturinn `postbox` or `parcel_point`. */
  kind: 'location' | 'postbox' | 'parcel_point';
  name: string;
  address: { line1: string; postal_code: string; city: string };
  latitude: number;
  longitude: number;
  /** The carrier's opening hours as it states them, one line per span. */
  opening_hours: string[];
}

export interface PickupPointQuery {
  postcode?: string | undefined;
  /** Part of the name or address, compared without case or accents. */
  q?: string | undefined;
  near?: { latitude: number; longitude: number } | undefined;
  limit: number;
}

/** Metres between two points on the Earth (haversine, mean radius), rounded to the metre. */
export function distanceMeters(a: { latitude: number; longitude: number }, b: typeof a): number {
  const rad = Math.PI / 180;
  const dLat = (b.latitude - a.latitude) * rad;
  const dLon = (b.longitude - a.longitude) * rad;
  const h =
    Math.sin(dLat / 2) ** 2 +
    Math.cos(a.latitude * rad) * Math.cos(b.latitude * rad) * Math.sin(dLon / 2) ** 2;
  return Math.round(2 * 6_371_008.8 * Math.asin(Math.min(1, Math.sqrt(h))));
}

const fold = (s: string) =>
  s
    .normalize('NFD')
    .replace(/\p{Diacritic}/gu, '')
    .replace(/ð/gi, 'd')
    .replace(/þ/gi, 'th')
    .replace(/æ/gi, 'ae')
    .replace(/ö/gi, 'o')
    .toLowerCase();

/**
 * Filters by postcode and text, then orders: nearest first when a point is given, else by postcode
 * then name (Icelandic collation), so the same fixtures always give the same order.
 */
export function searchPickupPoints(
  points: readonly PickupPoint[],
  query: PickupPointQuery,
): Array<PickupPoint & { distance_m: number | null }> {
  const q = query.q ? fold(query.q.trim()) : '';
  const found = points
    .filter((p) => !query.postcode || p.address.postal_code === query.postcode)
    .filter((p) => !q || fold(`${p.name} ${p.address.line1} ${p.address.city}`).includes(q))
    .map((p) => ({ ...p, distance_m: query.near ? distanceMeters(query.near, p) : null }));
  const collator = new Intl.Collator('is');
  found.sort((a, b) =>
    a.distance_m !== null && b.distance_m !== null && a.distance_m !== b.distance_m
      ? a.distance_m - b.distance_m
      : a.address.postal_code.localeCompare(b.address.postal_code) ||
        collator.compare(a.name, b.name) ||
        a.id.localeCompare(b.id),
  );
  return found.slice(0, query.limit);
}
