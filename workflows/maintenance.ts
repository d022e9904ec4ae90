import { patched, proxyActivities } from '@temporalio/workflow';
import type { createMaintenanceActivities } from '../activities/maintenance';

const { purgeExpiredIdempotencyKeys, pruneMerchantAuditLog } = proxyActivities<
  ReturnType<typeof createMaintenanceActivities>
>({
  startToCloseTimeout: '5 minutes',
  retry: { maximumAttempts: 3 },
});

/** Run hourly by a schedule: housekeeping of expired rows. */
export async function maintenance(): Promise<{ idempotencyKeysPurged: number; auditEntriesPruned?: number }> {
  const idempotencyKeysPurged = await purgeExpiredIdempotencyKeys();
  // Runs begun before the audit log's retention (decision 0227) replay without its activity.
  if (!patched('merchant-audit-retention')) return { idempotencyKeysPurged };
  return { idempotencyKeysPurged, auditEntriesPruned: await pruneMerchantAuditLog() };
}
