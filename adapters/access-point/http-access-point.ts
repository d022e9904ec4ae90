import { z } from 'zod';
import {
  AccessPointRefusal,
  type AccessPoint,
  type OutgoingDocument,
  type Transmission,
} from './access-point';

/**
 * The access-point protocol the simulated access point serves (decision 0215), shaped as the
 * access points' own REST interfaces are: the raw UBL document posted with its routing in headers
 * and the client's reference as an idempotency key, answered with a transmission id; the outcome
 * read from the transmission later. Bearer token authentication.
 *
 *   POST {base}/v1/transmissions   body: the UBL (application/xml); headers `Peppol-Sender`,
 *        `Peppol-Receiver`, `Document-Kind` (invoice | credit_note), `Idempotency-Key`
 *        → 202 TransmissionBody (200 when the key was seen: the first transmission)
 *   GET  {base}/v1/transmissions/{id} → 200 TransmissionBody
 */
export const TransmissionBody = z.object({
  id: z.string(),
  reference: z.string(),
  status: z.enum(['received', 'delivered', 'rejected']),
  reasons: z.array(z.object({ rule: z.string(), message: z.string() })),
});
export type TransmissionBody = z.infer<typeof TransmissionBody>;

const STATE: Record<TransmissionBody['status'], Transmission['state']> = {
  received: 'pending',
  delivered: 'delivered',
  rejected: 'failed',
};

function transmissionOf(body: unknown): Transmission {
  const t = TransmissionBody.parse(body);
  return { id: t.id, reference: t.reference, state: STATE[t.status], reasons: t.reasons };
}

async function call(url: string, init: RequestInit): Promise<unknown> {
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(30_000) });
  const text = await res.text();
  if (res.status >= 400 && res.status < 500) {
    let message = text.slice(0, 200);
    try {
      message = (JSON.parse(text) as { error?: string }).error ?? message;
    } catch {
      // keep the text
    }
    throw new AccessPointRefusal(message || `access point answered ${res.status}`, res.status);
  }
  if (!res.ok) throw new Error(`access point answered ${res.status}`);
  return JSON.parse(text);
}

export function httpAccessPoint(opts: { baseUrl: string; token: string }): AccessPoint {
  const base = opts.baseUrl.replace(/\/+$/, '');
  const auth = { authorization: `Bearer ${opts.token}`, accept: 'application/json' };
  return {
    async send(doc: OutgoingDocument) {
      return transmissionOf(
        await call(`${base}/v1/transmissions`, {
          method: 'POST',
          headers: {
            ...auth,
            'content-type': 'application/xml; charset=utf-8',
            'peppol-sender': doc.sender,
            'peppol-receiver': doc.receiver,
            'document-kind': doc.kind,
            'idempotency-key': doc.reference,
          },
          body: doc.xml,
        }),
      );
    },
    async status(id: string) {
      return transmissionOf(
        await call(`${base}/v1/transmissions/${encodeURIComponent(id)}`, { method: 'GET', headers: auth }),
      );
    },
  };
}
