import { createDrawer } from './drawer';
import { createRefunds } from './refunds';
import { createReports } from './reports';
import { createSales } from './sales';
import { createShifts } from './shifts';
import type { TillDeps } from './till-deps';

export type { TillDeps } from './till-deps';

/**
 * What happens at a till, as one service for the routes and the till's pages: the drawer shift
 * (shifts.ts), cash moved in and out (drawer.ts), sales paid by cash, card or both (sales.ts),
 * refunds (refunds.ts), and the X and Z reports (reports.ts).
 */
export function createTillService(deps: TillDeps) {
  return {
    ...createShifts(deps),
    ...createDrawer(deps),
    ...createSales(deps),
    ...createRefunds(deps),
    ...createReports(deps),
  };
}

export type TillService = ReturnType<typeof createTillService>;
