import { proxyActivities } from '@temporalio/workflow';
import type { createWebhookActivities } from '../activities/webhooks';

const { wakeChannelsWithOverdueDeliveries } = proxyActivities<ReturnType<typeof createWebhookActivities>>({
  startToCloseTimeout: '1 minute',
  retry: { maximumAttempts: 3 },
});

export interface WebhookRelayInput {
  /** How late a delivery must be before its channel is assumed not to know about it. */
  graceMs: number;
}

/**
 * Run by a Temporal schedule: wakes channel workflows that hold overdue deliveries. The API signals
 * a channel right after committing an event; if it crashed in between, this catches it up.
 */
export async function webhookRelay(input: WebhookRelayInput): Promise<number> {
  return wakeChannelsWithOverdueDeliveries({ graceMs: input.graceMs, limit: 1000 });
}
