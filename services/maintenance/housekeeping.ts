import type { Knex } from '../../db/knex';
import { createIdempotencyRepository } from '../../db/idempotency';

/** Housekeeping that keeps tables from growing without bound. */
export function createHousekeeping(deps: { knex: Knex }) {
  const idempotency = createIdempotencyRepository(deps.knex);
  return {
    /** Deletes idempotency keys past their 24 hours; returns how many. */
    purgeExpiredIdempotencyKeys: (): Promise<number> => idempotency.purgeExpired(),
  };
}

export type Housekeeping = ReturnType<typeof createHousekeeping>;
