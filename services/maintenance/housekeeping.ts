import type { Knex } from '../../db/knex';
import { createIdempotencyRepository } from '../../db/idempotency';
import { createAuditLogRepository } from '../../db/merchant-audit-log';

/** Housekeeping that keeps tables from growing without bound. */
export function createHousekeeping(deps: { knex: Knex }) {
  const idempotency = createIdempotencyRepository(deps.knex);
  const audit = createAuditLogRepository(deps.knex);
  return {
    /** Deletes idempotency keys past their 24 hours; returns how many. */
    purgeExpiredIdempotencyKeys: (): Promise<number> => idempotency.purgeExpired(),
    /** Deletes merchant audit entries past their retention of 730 days (decision 0227); returns how many. */
    pruneMerchantAuditLog: (): Promise<number> => audit.pruneOld(),
  };
}

export type Housekeeping = ReturnType<typeof createHousekeeping>;
