import { proxyActivities } from '@temporalio/workflow';
import type { createMaintenanceActivities } from '../activities/maintenance';

const { purgeExpiredIdempotencyKeys } = proxyActivities<ReturnType<typeof createMaintenanceActivities>>({
  startToCloseTimeout: '5 minutes',
  retry: { maximumAttempts: 3 },
});

/** Run hourly by a schedule: housekeeping of expired rows. */
export async function maintenance(): Promise<{ idempotencyKeysPurged: number }> {
  return { idempotencyKeysPurged: await purgeExpiredIdempotencyKeys() };
}
