import { Router } from 'express';
import type { OperationDoc } from '../../openapi';
import type { PosSetupService } from '../../../services/pos/pos-setup';
import type { TillService } from '../../../services/pos/till';
import type { SaleReceipts } from '../../../services/pos/sale-receipt';
import { posDevicesPublicRouter, posDevicesRouter } from './devices';
import { posDrawerRouter } from './drawer';
import { posRefundsRouter } from './refunds';
import { posRegistersRouter } from './registers';
import { posReportsRouter } from './reports';
import { posSalesRouter } from './sales';
import { posShiftsRouter } from './shifts';
import { posStaffRouter } from './staff';
import { posTerminalsPublicRouter, posTerminalsRouter } from './terminals';

/**
 * The point of sale under /v1/pos/…, one router per resource: set-up with the merchant's API key
 * (registers, staff, pairing, terminals), and till actions with a paired device's credential or an
 * API key (decision 0126). Every route answers 403 `pos_not_enabled` while features.pos is false
 * (spec §7). No two routers share a path, so the order they are mounted in is the document's order.
 */
export function posRouter(
  deps: { setup: PosSetupService; till: TillService; receipts: SaleReceipts },
  docs: OperationDoc[],
): Router {
  const router = Router();
  router.use(posRegistersRouter(deps, docs));
  router.use(posDevicesRouter(deps, docs));
  router.use(posShiftsRouter(deps, docs));
  router.use(posDrawerRouter(deps, docs));
  router.use(posSalesRouter(deps, docs));
  router.use(posRefundsRouter(deps, docs));
  router.use(posReportsRouter(deps, docs));
  router.use(posStaffRouter(deps, docs));
  router.use(posTerminalsRouter(deps, docs));
  return router;
}

/** The two POS routes that need no key: a till pairing itself, and a terminal announcing its code. */
export function posPublicRouter(deps: { setup: PosSetupService }, docs: OperationDoc[]): Router {
  const router = Router();
  router.use(posDevicesPublicRouter(deps, docs));
  router.use(posTerminalsPublicRouter(deps, docs));
  return router;
}
