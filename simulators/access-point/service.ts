import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express, { type NextFunction, type Request, type Response } from 'express';
import { randomBase62 } from '../../domain/ids';
import { checkKennitala } from '../../domain/kennitala';
import type { RefusalReason } from '../../adapters/access-point/access-point';
import type { TransmissionBody } from '../../adapters/access-point/http-access-point';
import { checkDocument } from './document-checks';
import type { Logger } from '../../stack/logger';

/**
 * The simulated Peppol access point of the test environment (decisions 0215, 0216): it takes UBL
 * documents over the protocol of adapters/access-point/http-access-point.ts, looks the receiver up
 * in its directory, validates the document and delivers it or refuses it with the rule ids. It keeps
 * its transmissions in memory, each once per sender reference.
 *
 * Its directory (the SMP a real access point asks) knows every company by its kennitala (scheme
 * 0196, a legal entity's: first digit 4–7) and every GLN (0088, 13 digits); a person's kennitala is
 * not registered, so a document to one is refused with `receiver_not_registered`.
 */
export interface SimulatedAccessPoint {
  url: string;
  /** The bearer token clients send. */
  token: string;
  /** Every transmission received, oldest first, with its document: what tests look at. */
  transmissions(): (TransmissionBody & { sender: string; receiver: string; xml: string })[];
  stop(): Promise<void>;
}

/** Validates a document; the fatal findings, none when it passes. */
export type DocumentValidator = (xml: string, receiver: string) => Promise<RefusalReason[]>;

export const SIMULATED_ACCESS_POINT_TOKEN = 'simulated-access-point-token';

/** Whether the simulated directory has the participant. */
export function isRegisteredParticipant(id: string): boolean {
  const [scheme, value = ''] = id.split(':');
  if (scheme === '0088') return /^[0-9]{13}$/.test(value);
  if (scheme !== '0196') return false;
  const k = checkKennitala(value);
  return k.ok && k.kennitala.kind === 'company';
}

export async function startSimulatedAccessPoint(
  opts: { port?: number; host?: string; validate?: DocumentValidator; log?: Logger } = {},
): Promise<SimulatedAccessPoint> {
  const validate: DocumentValidator =
    opts.validate ?? ((xml, receiver) => Promise.resolve(checkDocument(xml, receiver)));
  type Kept = TransmissionBody & { sender: string; receiver: string; xml: string };
  const byId = new Map<string, Kept>();
  const byReference = new Map<string, string>();
  const app = express();
  app.use(express.text({ type: ['application/xml', 'text/xml'], limit: '10mb' }));

  const auth = (req: Request, res: Response, next: NextFunction) =>
    req.header('authorization') === `Bearer ${SIMULATED_ACCESS_POINT_TOKEN}`
      ? next()
      : res.status(401).json({ error: 'Unauthorized' });
  const publicView = (t: Kept): TransmissionBody => ({
    id: t.id,
    reference: t.reference,
    status: t.status,
    reasons: t.reasons,
  });

  /** Validation runs after the answer, as a real access point's does: the outcome is read later. */
  async function process(t: Kept): Promise<void> {
    try {
      if (!isRegisteredParticipant(t.receiver)) {
        t.reasons = [
          {
            rule: 'receiver_not_registered',
            message: `${t.receiver} is not registered in the Peppol directory`,
          },
        ];
      } else {
        t.reasons = await validate(t.xml, t.receiver);
      }
      t.status = t.reasons.length === 0 ? 'delivered' : 'rejected';
    } catch (err) {
      // A validator that cannot run (no Java in a test run) refuses, saying why: a document it did
      // not check is never delivered, and the test that sent it fails with the reason.
      opts.log?.error({ err, transmission: t.id }, 'simulated access point could not validate');
      t.reasons = [{ rule: 'validator_unavailable', message: (err as Error).message }];
      t.status = 'rejected';
    }
  }

  app.post('/v1/transmissions', auth, (req, res) => {
    const sender = req.header('peppol-sender') ?? '';
    const receiver = req.header('peppol-receiver') ?? '';
    const reference = req.header('idempotency-key') ?? '';
    const kind = req.header('document-kind') ?? '';
    const pid = /^[0-9]{4}:[^\s:]{1,100}$/;
    if (!pid.test(sender)) return res.status(400).json({ error: 'Peppol-Sender must be <scheme>:<id>' });
    if (!pid.test(receiver)) return res.status(400).json({ error: 'Peppol-Receiver must be <scheme>:<id>' });
    if (!/^[!-~]{1,200}$/.test(reference))
      return res.status(400).json({ error: 'Idempotency-Key is required' });
    if (kind !== 'invoice' && kind !== 'credit_note')
      return res.status(400).json({ error: 'Document-Kind must be invoice or credit_note' });
    if (typeof req.body !== 'string' || req.body === '')
      return res.status(400).json({ error: 'the body must be the UBL document (application/xml)' });
    const seen = byReference.get(`${sender}|${reference}`);
    if (seen) return res.status(200).json(publicView(byId.get(seen)!));
    const t: Kept = {
      id: `tx_${randomBase62(16)}`,
      reference,
      status: 'received',
      reasons: [],
      sender,
      receiver,
      xml: req.body,
    };
    byId.set(t.id, t);
    byReference.set(`${sender}|${reference}`, t.id);
    void process(t);
    return res.status(202).json(publicView(t));
  });

  app.get('/v1/transmissions/:id', auth, (req, res) => {
    const t = byId.get(String(req.params.id));
    return t ? res.json(publicView(t)) : res.status(404).json({ error: 'No such transmission' });
  });

  const server: Server = await new Promise((resolve) => {
    const s = app.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => resolve(s));
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    token: SIMULATED_ACCESS_POINT_TOKEN,
    transmissions: () => [...byId.values()],
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
