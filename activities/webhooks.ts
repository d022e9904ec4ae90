import { heartbeat } from '@temporalio/activity';
import type { DueDeliveries, DueDeliveryService, ScopedChannel } from '../services/channels/due-deliveries';
import type {
  AttemptBatchInput,
  AttemptOutcome,
  WebhookDeliveryBatches,
} from '../services/channels/webhook-delivery-batch';

export type { ChannelState, ScopedChannel } from '../services/channels/due-deliveries';
export type { AttemptOutcome };

export interface WebhookActivityDeps {
  /** What is due on a channel, and waking channels with overdue deliveries. */
  dueDeliveries: DueDeliveryService;
  /** Attempting due deliveries in batches (services/channels/webhook-delivery-batch.ts). */
  deliveryBatches: WebhookDeliveryBatches;
}

/** The webhook channel and relay workflows' steps. Every one is safe to retry: see attemptBatch. */
export function createWebhookActivities(deps: WebhookActivityDeps) {
  const activities = {
    /** The channel's state, the deliveries due now (at most `limit`), and when the next one is due (epoch ms). */
    async findDueDeliveries(input: ScopedChannel & { limit: number }): Promise<DueDeliveries> {
      return deps.dueDeliveries.find(input);
    },

    /**
     * Makes attempt `attemptNumber` of one delivery, exactly once: attemptDeliveries with a batch of
     * one. Kept for activity tasks scheduled by workflow code from before batches.
     */
    async attemptDelivery(input: {
      merchantId: string;
      livemode: boolean;
      deliveryId: string;
      attemptNumber: number;
      schedule: number[];
    }): Promise<AttemptOutcome> {
      const counts = await activities.attemptDeliveries({
        merchantId: input.merchantId,
        livemode: input.livemode,
        deliveries: [{ id: input.deliveryId, attemptNumber: input.attemptNumber }],
        schedule: input.schedule,
        concurrency: 1,
      });
      return (Object.keys(counts) as AttemptOutcome[]).find((k) => counts[k] > 0) ?? 'skipped';
    },

    /**
     * Attempts a batch of due deliveries, heartbeating as attempts end; given its channel, goes on
     * with the deliveries that fell due meanwhile (decision 0184).
     */
    async attemptDeliveries(input: AttemptBatchInput): Promise<Record<AttemptOutcome, number>> {
      return deps.deliveryBatches.attempt(input, (done) => heartbeat(done));
    },

    /** Signals the workflow of every channel holding overdue deliveries (lost wake-ups). */
    async wakeChannelsWithOverdueDeliveries(input: { graceMs: number; limit: number }): Promise<number> {
      return deps.dueDeliveries.wakeOverdue(input);
    },
  };
  return activities;
}

export type WebhookActivities = ReturnType<typeof createWebhookActivities>;
