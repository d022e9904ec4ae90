import type { Knex } from '../../db/knex';
import { createCheckoutSessionRepository } from '../../db/checkout-sessions';

/** The periodic half of checkout session expiry (the lazy half runs on every read). */
export function createSessionExpiry(deps: { knex: Knex }) {
  const sessions = createCheckoutSessionRepository(deps.knex);
  return {
    /** Moves every open session past its expires_at to `expired`; returns how many. */
    expireDue: (asOf: Date): Promise<number> => sessions.expireDue(asOf),
  };
}

export type SessionExpiry = ReturnType<typeof createSessionExpiry>;
