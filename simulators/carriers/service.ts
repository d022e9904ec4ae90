import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express, { type Request, type Response, type NextFunction } from 'express';
import { randomBase62 } from '../../domain/ids';
import type { DroppOrder } from '../../adapters/carriers/dropp';
import type { PosturinnShipment } from '../../adapters/carriers/posturinn';
import { DROPP_LOCATIONS, POSTURINN_PARCEL_POINTS, POSTURINN_POSTBOXES } from './fixtures';

/**
 * The simulated carriers of the test environment (decision 0137): Dropp's API under `/dropp/api/v1` and
 * Pósturinn's under `/wscm/v1`, with fixed pickup points and parcels kept in memory. A parcel moves
 * on only when told (`POST /simulator/parcels/{id}/advance`), as a courier scanning it would.
 */
export interface SimulatedCarriers {
  url: string;
  droppUrl: string;
  posturinnUrl: string;
  stop(): Promise<void>;
}

const DROPP_NEXT: Record<DroppOrder['status'], DroppOrder['status'] | null> = {
  initial: 'transit',
  transit: 'consignment',
  consignment: 'delivered',
  delivered: null,
  returned: null,
  cancelled: null,
};
const POSTURINN_NEXT: Record<PosturinnShipment['status'], PosturinnShipment['status'] | null> = {
  REGISTERED: 'IN_TRANSIT',
  IN_TRANSIT: 'READY_FOR_PICKUP',
  READY_FOR_PICKUP: 'DELIVERED',
  DELIVERED: null,
  RETURNED: null,
  CANCELLED: null,
};

export async function startSimulatedCarriers(
  opts: { port?: number; host?: string } = {},
): Promise<SimulatedCarriers> {
  const dropp = new Map<string, DroppOrder>();
  const droppByBarcode = new Map<string, string>();
  const posturinn = new Map<string, PosturinnShipment>();
  const posturinnByRef = new Map<string, string>();
  const app = express();
  app.use(express.json());

  const droppAuth = (req: Request, res: Response, next: NextFunction) =>
    /^Basic \S+$/.test(req.header('authorization') ?? '')
      ? next()
      : res.status(401).json({ error: 'Unauthorized' });
  const posturinnAuth = (req: Request, res: Response, next: NextFunction) =>
    (req.header('x-api-key') ?? '') !== '' ? next() : res.status(401).json({ message: 'Missing API key' });

  app.get('/dropp/api/v1/dropp/locations', droppAuth, (_req, res) => {
    res.json({ locations: DROPP_LOCATIONS });
  });
  app.post('/dropp/api/v1/orders', droppAuth, (req, res) => {
    const b = req.body as { locationId?: string; barcode?: string; customer?: { name?: string } };
    if (!b.locationId || !DROPP_LOCATIONS.some((l) => l.id === b.locationId))
      return res.status(400).json({ error: 'Unknown location' });
    if (!b.customer?.name) return res.status(400).json({ error: 'Customer name is required' });
    const known = b.barcode ? droppByBarcode.get(b.barcode) : undefined;
    if (known) return res.json(dropp.get(known));
    const order: DroppOrder = {
      id: `dropp-${randomBase62(12)}`,
      barcode: b.barcode || `DR${randomBase62(10).toUpperCase()}`,
      locationId: b.locationId,
      status: 'initial',
    };
    dropp.set(order.id, order);
    droppByBarcode.set(order.barcode, order.id);
    return res.json(order);
  });
  app.get('/dropp/api/v1/orders/:id', droppAuth, (req, res) => {
    const o = dropp.get(String(req.params.id));
    return o ? res.json(o) : res.status(404).json({ error: 'Order not found' });
  });
  app.delete('/dropp/api/v1/orders/:id', droppAuth, (req, res) => {
    const o = dropp.get(String(req.params.id));
    if (!o) return res.status(404).json({ error: 'Order not found' });
    if (o.status !== 'initial' && o.status !== 'cancelled')
      return res.status(409).json({ error: 'The order is already on its way' });
    o.status = 'cancelled';
    return res.json(o);
  });

  app.get('/wscm/v1/postboxes', posturinnAuth, (_req, res) => {
    res.json({ postboxes: POSTURINN_POSTBOXES });
  });
  app.get('/wscm/v1/parcelpoints', posturinnAuth, (_req, res) => {
    res.json({ parcelPoints: POSTURINN_PARCEL_POINTS });
  });
  app.post('/wscm/v1/shipments/create', posturinnAuth, (req, res) => {
    const b = req.body as {
      senderReference?: string;
      deliveryServiceId?: string;
      postboxId?: string;
      parcelPointId?: string;
      recipient?: { name?: string };
    };
    const ok =
      (b.deliveryServiceId === 'DPO' && POSTURINN_POSTBOXES.some((p) => p.postboxId === b.postboxId)) ||
      (b.deliveryServiceId === 'DPT' &&
        POSTURINN_PARCEL_POINTS.some((p) => p.parcelPointId === b.parcelPointId));
    if (!ok) return res.status(400).json({ message: 'Unknown delivery service or pickup point' });
    if (!b.recipient?.name || !b.senderReference)
      return res.status(400).json({ message: 'Recipient name and sender reference are required' });
    const known = posturinnByRef.get(b.senderReference);
    if (known) return res.json(posturinn.get(known));
    const shipment: PosturinnShipment = {
      shipmentId: `ps-${randomBase62(12)}`,
      barcode: `CC${String(Math.floor(Math.random() * 1e9)).padStart(9, '0')}IS`,
      senderReference: b.senderReference,
      status: 'REGISTERED',
    };
    posturinn.set(shipment.shipmentId, shipment);
    posturinnByRef.set(b.senderReference, shipment.shipmentId);
    return res.json(shipment);
  });
  app.get('/wscm/v1/shipments/:id', posturinnAuth, (req, res) => {
    const s = posturinn.get(String(req.params.id));
    return s ? res.json(s) : res.status(404).json({ message: 'Shipment not found' });
  });
  app.post('/wscm/v1/shipments/:id/cancel', posturinnAuth, (req, res) => {
    const s = posturinn.get(String(req.params.id));
    if (!s) return res.status(404).json({ message: 'Shipment not found' });
    if (s.status !== 'REGISTERED' && s.status !== 'CANCELLED')
      return res.status(409).json({ message: 'The shipment is already on its way' });
    s.status = 'CANCELLED';
    return res.json(s);
  });

  // The courier's side: moves a parcel one step on, or to `returned`.
  app.post('/simulator/parcels/:id/advance', (req, res) => {
    const returned = (req.body as { to?: string } | undefined)?.to === 'returned';
    const o = dropp.get(String(req.params.id));
    if (o) {
      const next = returned ? (DROPP_NEXT[o.status] ? 'returned' : null) : DROPP_NEXT[o.status];
      if (!next) return res.status(409).json({ error: `The order is ${o.status}` });
      o.status = next;
      return res.json(o);
    }
    const s = posturinn.get(String(req.params.id));
    if (s) {
      const next = returned ? (POSTURINN_NEXT[s.status] ? 'RETURNED' : null) : POSTURINN_NEXT[s.status];
      if (!next) return res.status(409).json({ message: `The shipment is ${s.status}` });
      s.status = next;
      return res.json(s);
    }
    return res.status(404).json({ error: 'No such parcel' });
  });

  const server: Server = await new Promise((resolve) => {
    const s = app.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => resolve(s));
  });
  const url = `http://${opts.host ?? '127.0.0.1'}:${(server.address() as AddressInfo).port}`;
  return {
    url,
    droppUrl: `${url}/dropp/api/v1`,
    posturinnUrl: `${url}/wscm/v1`,
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
