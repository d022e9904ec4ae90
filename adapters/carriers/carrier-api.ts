import type { Carrier, DeliveryStatus, PickupPoint } from '../../domain/delivery';

/**
 * A pickup-point carrier (decision 0137): its pickup points, and parcels booked to one of them.
 * Dropp and Pósturinn each have an adapter over their own published API; the simulated carriers
 * serve the same two APIs in test mode, so tests run these clients against them.
 */
export interface CarrierApi {
  readonly carrier: Carrier;
  /** Every pickup point of the carrier, in Skil's shape. */
  pickupPoints(): Promise<PickupPoint[]>;
  /**
   * Books a parcel to a pickup point. `reference` is Skil's delivery id: booking twice with it
   * answers the first booking.
   */
  book(req: BookingRequest): Promise<CarrierParcel>;
  /** The parcel's state at the carrier now. */
  parcel(orderId: string): Promise<CarrierParcel>;
  /** Cancels a parcel the carrier does not have yet; a parcel already under way is refused. */
  cancel(orderId: string): Promise<CarrierParcel>;
}

export interface BookingRequest {
  reference: string;
  /** The carrier's own id of the point (without the `<carrier>:` prefix). */
  pointId: string;
  kind: PickupPoint['kind'];
  recipient: { name: string; email: string | null; phone: string | null };
  description: string;
}

export interface CarrierParcel {
  orderId: string;
  trackingNumber: string;
  status: DeliveryStatus;
}

/** A refusal by the carrier (4xx): not worth retrying. */
export class CarrierRefusal extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
    this.name = 'CarrierRefusal';
  }
}

/** The one request function of both adapters: JSON over HTTP, 4xx a refusal, anything else thrown. */
export async function carrierRequest<T>(
  url: string,
  init: { method: string; headers: Record<string, string>; json?: unknown },
): Promise<T> {
  const res = await fetch(url, {
    method: init.method,
    headers: {
      accept: 'application/json',
      ...(init.json !== undefined && { 'content-type': 'application/json;charset=UTF-8' }),
      ...init.headers,
    },
    ...(init.json !== undefined && { body: JSON.stringify(init.json) }),
    signal: AbortSignal.timeout(15_000),
  });
  const text = await res.text();
  if (res.status >= 400 && res.status < 500) {
    let message = text.slice(0, 200);
    try {
      const parsed = JSON.parse(text) as { error?: string; message?: string };
      message = parsed.error ?? parsed.message ?? message;
    } catch {
      // keep the text
    }
    throw new CarrierRefusal(message || `carrier answered ${res.status}`, res.status);
  }
  if (!res.ok) throw new Error(`carrier answered ${res.status}`);
  return JSON.parse(text) as T;
}
