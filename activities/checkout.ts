import type { Knex } from '../db/knex';
import { createCheckoutSessionRepository } from '../db/checkout-sessions';

/** Checkout housekeeping: the periodic half of session expiry (the lazy half runs on every read). */
export function createCheckoutActivities(deps: { knex: Knex }) {
  const sessions = createCheckoutSessionRepository(deps.knex);
  return {
    /** Moves every open session past its expires_at to `expired`; returns how many. */
    async expireCheckoutSessions(asOf?: string): Promise<number> {
      return sessions.expireDue(asOf ? new Date(asOf) : new Date());
    },
  };
}
