import express, { type Request, type Response, type Router } from 'express';
import type { Logger } from '../../stack/logger';
import type { AcquirerSettlementItem, CollectionAccount } from './collection-account';

/**
 * `POST /_sim/acquirer-settlements`: the card acquirer tells the bank about each capture and refund
 * it will settle to Skil's collection account (decision 0091). Idempotent by the item's id (the
 * authorization id of a capture, the refund id of a refund): a repeated report is acknowledged and
 * changes nothing. The items are deposited as one camt.053 entry when the day closes.
 */

/** What the acquirer sends. */
export interface AcquirerSettlementReport {
  id: string;
  kind: 'capture' | 'refund';
  authorization: string;
  amount: number;
  /** ISO 8601 time of the capture or refund. */
  at: string;
}

const ID = /^[A-Za-z0-9_-]{1,100}$/;

/** The report, checked; null when any field is missing or malformed. */
export function checkSettlementReport(body: unknown): AcquirerSettlementReport | null {
  if (body === null || typeof body !== 'object') return null;
  const b = body as Record<string, unknown>;
  const { id, kind, authorization, amount, at } = b;
  if (typeof id !== 'string' || !ID.test(id)) return null;
  if (kind !== 'capture' && kind !== 'refund') return null;
  if (typeof authorization !== 'string' || !ID.test(authorization)) return null;
  if (typeof amount !== 'number' || !Number.isSafeInteger(amount) || amount <= 0) return null;
  if (typeof at !== 'string' || Number.isNaN(Date.parse(at))) return null;
  return { id, kind, authorization, amount, at };
}

export function createAcquirerSettlementsRouter(deps: {
  account: CollectionAccount;
  now: () => Date;
  log: Logger;
}): Router {
  const router = express.Router();
  router.post('/_sim/acquirer-settlements', express.json({ limit: '8kb' }), (req: Request, res: Response) => {
    const report = checkSettlementReport(req.body);
    if (!report)
      return void res.status(400).json({ error: 'id, kind, authorization, amount and at are required' });
    const item: Omit<AcquirerSettlementItem, 'settledDay'> = {
      ...report,
      receivedDay: deps.now().toISOString().slice(0, 10),
    };
    const added = deps.account.addAcquirerItem(item);
    if (!added) return void res.status(200).json({ id: report.id, duplicate: true });
    deps.account
      .save()
      .then(() => res.status(201).json({ id: report.id, duplicate: false }))
      .catch((err: unknown) => {
        deps.log.error({ err }, 'simulated bank: could not save the collection account');
        res.status(500).end();
      });
  });
  return router;
}
