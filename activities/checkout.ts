import type { SessionExpiry } from '../services/checkout/session-expiry';

/** Checkout housekeeping: the periodic half of session expiry (the lazy half runs on every read). */
export function createCheckoutActivities(deps: { sessionExpiry: SessionExpiry }) {
  return {
    /** Moves every open session past its expires_at (at `asOf`, ISO 8601, or now) to `expired`; returns how many. */
    async expireCheckoutSessions(asOf?: string): Promise<number> {
      return deps.sessionExpiry.expireDue(asOf ? new Date(asOf) : new Date());
    },
  };
}
