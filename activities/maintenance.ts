import type { Knex } from '../db/knex';
import { createIdempotencyRepository } from '../db/idempotency';

/** Housekeeping that keeps tables from growing without bound. */
export function createMaintenanceActivities(deps: { knex: Knex }) {
  const idempotency = createIdempotencyRepository(deps.knex);
  return {
    /** Deletes idempotency keys past their 24 hours; returns how many. */
    async purgeExpiredIdempotencyKeys(): Promise<number> {
      return idempotency.purgeExpired();
    },
  };
}
