import { proxyActivities } from '@temporalio/workflow';
import type { createCheckoutActivities } from '../activities/checkout';

const { expireCheckoutSessions } = proxyActivities<ReturnType<typeof createCheckoutActivities>>({
  startToCloseTimeout: '2 minutes',
  retry: { maximumAttempts: 5 },
});

/** Run by a schedule: open checkout sessions past expires_at become `expired` (spec §3). */
export async function checkoutExpiry(input: { asOf?: string } = {}): Promise<{ expired: number }> {
  return { expired: await expireCheckoutSessions(input.asOf) };
}
