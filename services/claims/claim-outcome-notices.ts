import type { Knex } from '../../db/knex';
import type { Logger } from '../../stack/logger';
import type { ClaimRow } from '../../db/claims';
import type { BatchEvent } from '../../db/event-batch';
import { lifecycleRefsOfClaims, type ClaimLifecycleRef } from '../../db/claim-collection';
import { presentClaim } from './claim-object';

export type { ClaimLifecycleRef };

/** An event about a claim, as recorded in the transaction that changed it. */
export function claimEvent(type: string, row: ClaimRow): BatchEvent {
  return { merchantId: row.merchant_id, livemode: row.livemode, type, data: presentClaim(row) };
}

export interface ClaimOutcomeNoticeDeps {
  knex: Knex;
  log: Logger;
  wakeChannels: (channelIds: string[]) => Promise<void>;
  /**
   * Starts or signals the lifecycle workflows of subscriptions a krafa's outcome moves on (paid,
   * cancelled at the bank; decision 0105); unset: they learn it when their wait for it ends.
   */
  notifyLifecycle?: ((refs: ClaimLifecycleRef[]) => Promise<void>) | undefined;
}

/** Who hears of claims' outcomes once they are committed: notification channels and subscriptions. */
export function createClaimOutcomeNotices(deps: ClaimOutcomeNoticeDeps) {
  return {
    /** Wakes the channels events were recorded for; a lost wake-up is found by the relay. */
    async wake(ids: string[]): Promise<void> {
      if (ids.length > 0) await deps.wakeChannels(ids).catch(() => undefined);
    },

    /**
     * The subscriptions these kröfur's outcomes move on look again. A failed signal is only logged:
     * a retried sync finds nothing new to apply, and the waiting workflow looks again when its wait
     * for the krafa's expiry ends.
     */
    async notifySubscriptions(claimIds: string[], by: 'id' | 'bank_claim_id' = 'id'): Promise<void> {
      const refs = await lifecycleRefsOfClaims(deps.knex, claimIds, by);
      if (refs.length === 0 || !deps.notifyLifecycle) return;
      await deps.notifyLifecycle(refs).catch((err: unknown) => {
        deps.log.warn(
          { err, subscriptions: refs.map((r) => r.subscriptionId) },
          'subscriptions not signalled',
        );
      });
    },
  };
}

export type ClaimOutcomeNotices = ReturnType<typeof createClaimOutcomeNotices>;
