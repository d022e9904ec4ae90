import type { Housekeeping } from '../services/maintenance/housekeeping';

/** Housekeeping that keeps tables from growing without bound (services/maintenance/). */
export function createMaintenanceActivities(deps: { housekeeping: Housekeeping }) {
  return {
    /** Deletes idempotency keys past their 24 hours; returns how many. */
    async purgeExpiredIdempotencyKeys(): Promise<number> {
      return deps.housekeeping.purgeExpiredIdempotencyKeys();
    },
    /** Deletes merchant audit entries past their retention (decision 0227); returns how many. */
    async pruneMerchantAuditLog(): Promise<number> {
      return deps.housekeeping.pruneMerchantAuditLog();
    },
  };
}
