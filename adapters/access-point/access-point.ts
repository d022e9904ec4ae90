/**
 * A Peppol access point (decision 0215): Skil hands it a finished UBL document with the sender's and
 * the receiver's participant ids, and learns later whether it reached the receiver's access point.
 * The simulated access point of the test environment speaks the protocol of `http-access-point.ts`;
 * a live access point (Unimaze/Sendill, Advania, InExchange) needs an adapter of its own over its
 * published interface, checked against it as decision 0215 lists. None exists yet.
 */
export interface AccessPoint {
  /**
   * Hands a document over. `reference` is Skil's id of the document (the invoice id): sending twice
   * with it answers the first transmission and never sends a second one.
   */
  send(document: OutgoingDocument): Promise<Transmission>;
  /** The transmission's state at the access point now. */
  status(transmissionId: string): Promise<Transmission>;
}

/** A Peppol participant identifier as `<scheme>:<value>`, e.g. `0196:5501692829` (a kennitala). */
export type ParticipantId = string;

export interface OutgoingDocument {
  reference: string;
  kind: 'invoice' | 'credit_note';
  sender: ParticipantId;
  receiver: ParticipantId;
  /** The UBL 2.1 document, Peppol BIS Billing 3.0. */
  xml: string;
}

/** Why an access point would not deliver a document: a rule id of the validation artefacts, or its own code. */
export interface RefusalReason {
  rule: string;
  message: string;
}

export interface Transmission {
  /** The access point's id of the transmission. */
  id: string;
  reference: string;
  /** `pending`: taken, not yet delivered or refused; `delivered` and `failed` are final. */
  state: 'pending' | 'delivered' | 'failed';
  /** Empty unless `failed`. */
  reasons: RefusalReason[];
}

/**
 * The access point would not take the request at all (4xx: credentials, a malformed request): not
 * worth retrying. Anything else it throws (timeouts, 5xx) is worth retrying.
 */
export class AccessPointRefusal extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
    this.name = 'AccessPointRefusal';
  }
}

/** `0196:5501692829` → its scheme and value; null when it is not of that shape. */
export function parseParticipantId(id: string): { scheme: string; value: string } | null {
  const m = /^([0-9]{4}):([^\s:]{1,100})$/.exec(id);
  return m ? { scheme: m[1]!, value: m[2]! } : null;
}

/** The access point of each environment; an environment without one fails its Peppol deliveries. */
export interface AccessPoints {
  test?: AccessPoint | undefined;
  live?: AccessPoint | undefined;
}
