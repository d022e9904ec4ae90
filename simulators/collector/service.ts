import express, { type NextFunction, type Request, type Response } from 'express';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CollectionCase } from '../../adapters/collectors/collector';
import { SimulatedCollector } from './simulated-collector';

/**
 * The test environment's collector over HTTP (decisions 0247, 0248), speaking the collector
 * adapter's interface: `PUT /v1/cases/{reference}` (a case handed over; the same reference again is
 * the same case) and `GET /v1/payments?after=` (the payments its debtors made, in order, after the
 * last one the caller saw). `POST /v1/cases/{reference}/payments` is the simulation's own hook: a
 * debtor pays the collector (`{amount, paid_on}`), as a test or a person trying the test mode does.
 */

export const SIMULATED_COLLECTOR_TOKEN = 'simulated-collector-token';

export interface SimulatedCollectorService {
  url: string;
  token: string;
  collector: SimulatedCollector;
  stop(): Promise<void>;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;

export async function startSimulatedCollector(
  opts: { port?: number; host?: string } = {},
): Promise<SimulatedCollectorService> {
  const collector = new SimulatedCollector();
  const app = express();
  app.use(express.json({ limit: '1mb' }));
  const auth = (req: Request, res: Response, next: NextFunction) =>
    req.header('authorization') === `Bearer ${SIMULATED_COLLECTOR_TOKEN}`
      ? next()
      : res.status(401).json({ error: 'Unauthorized' });

  app.put('/v1/cases/:reference', auth, async (req, res) => {
    const c = req.body as CollectionCase | undefined;
    if (!c || c.reference !== req.params.reference)
      return res.status(400).json({ error: 'the body is a case whose reference is the path' });
    try {
      return res.json({ id: (await collector.handOff(c)).caseId, reference: c.reference });
    } catch (err) {
      return res.status(400).json({ error: (err as Error).message });
    }
  });

  app.get('/v1/cases/:reference', auth, (req, res) => {
    const k = collector.cases.get(String(req.params.reference));
    return k ? res.json({ id: k.id, received: k.received }) : res.status(404).json({ error: 'No such case' });
  });

  app.post('/v1/cases/:reference/payments', auth, (req, res) => {
    const { amount, paid_on } = (req.body ?? {}) as { amount?: unknown; paid_on?: unknown };
    if (!Number.isInteger(amount) || (amount as number) <= 0)
      return res.status(400).json({ error: 'amount: a positive whole number of ISK' });
    if (typeof paid_on !== 'string' || !DATE.test(paid_on))
      return res.status(400).json({ error: 'paid_on: YYYY-MM-DD' });
    if (!collector.cases.has(String(req.params.reference)))
      return res.status(404).json({ error: 'No such case' });
    return res.json(collector.receive(String(req.params.reference), amount as number, paid_on));
  });

  app.get('/v1/payments', auth, async (req, res) => {
    const after = typeof req.query.after === 'string' ? req.query.after : null;
    return res.json({ data: await collector.payments(after) });
  });

  const server: Server = await new Promise((resolve) => {
    const s = app.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => resolve(s));
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    token: SIMULATED_COLLECTOR_TOKEN,
    collector,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
