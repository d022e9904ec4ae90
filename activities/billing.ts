import { heartbeat } from '@temporalio/activity';
import type {
  ChargeReason,
  ChargeSummary,
  DuePage,
  RenewalService,
} from '../services/billing/renewal-service';

export type { ChargeReason, ChargeSummary, LifecycleRef } from '../services/billing/renewal-service';

/**
 * Billing for workflows: due pages of a billing run and single charges of the subscription
 * workflow, both through the renewal service (services/billing/). A refused card is an outcome the
 * service returns; an outage is thrown as it is, so Temporal retries the page with the same keys.
 */
export function createBillingActivities(deps: { renewals: RenewalService }) {
  return {
    /**
     * One page of a billing run: the due subscriptions of one lane (at most `limit`), charged
     * together. Renewed ones are no longer due, so the next call finds the next page.
     */
    async renewDuePage(input: DuePage): Promise<ChargeSummary & { more: boolean }> {
      return deps.renewals.renewDuePage(input, heartbeatSafe);
    },

    /** Charges one subscription outside a batch: its first period, the end of its trial, a retry. */
    async chargeSubscription(input: {
      subscriptionId: string;
      asOf: number;
      reason: Exclude<ChargeReason, 'renewal'>;
    }): Promise<'paid' | 'failed' | 'none'> {
      return deps.renewals.chargeSubscription(input, heartbeatSafe);
    },
  };
}

function heartbeatSafe(details: unknown): void {
  try {
    heartbeat(details);
  } catch {
    // Outside an activity context (a direct call from a script): nothing to report to.
  }
}
