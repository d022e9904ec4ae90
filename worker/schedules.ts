import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client } from '@temporalio/client';
import type { Duration } from '@temporalio/common';

interface ScheduleDef {
  /** Schedule ids carry the task queue, so deployments (and test runs) sharing a namespace stay apart. */
  id: (taskQueue: string) => string;
  every: Duration;
  workflowType: string;
  args: unknown[];
}

export const SCHEDULES: readonly ScheduleDef[] = [
  // Wakes channel workflows whose wake-up signal was lost (decision 0005).
  {
    id: (q) => `webhooks-relay/${q}`,
    every: '1 minute',
    workflowType: 'webhookRelay',
    args: [{ graceMs: 60_000 }],
  },
  // Forgets idempotency keys older than 24 hours (decision 0003).
  { id: (q) => `maintenance/${q}`, every: '1 hour', workflowType: 'maintenance', args: [] },
  // Expires open checkout sessions past their 24 hours (spec §3; reads also expire lazily).
  { id: (q) => `checkout-expiry/${q}`, every: '5 minutes', workflowType: 'checkoutExpiry', args: [{}] },
  // Renews the subscriptions due, per environment (architecture, billing run; decision 0042).
  {
    id: (q) => `billing-run/live/${q}`,
    every: '15 minutes',
    workflowType: 'billingRun',
    args: [{ livemode: true }],
  },
  {
    id: (q) => `billing-run/test/${q}`,
    every: '15 minutes',
    workflowType: 'billingRun',
    args: [{ livemode: false }],
  },
  // Issues pending claims at the bank in batches, and reads their payments (decisions 0061, 0062).
  {
    id: (q) => `claim-batch/test/${q}`,
    every: '1 minute',
    workflowType: 'claimBatch',
    args: [{ livemode: false }],
  },
  {
    id: (q) => `claim-batch/live/${q}`,
    every: '1 minute',
    workflowType: 'claimBatch',
    args: [{ livemode: true }],
  },
  // Opens the day's settlement runs at 00:00 UTC (Iceland time); closed days are skipped (decision 0093).
  {
    id: (q) => `settlement-day/test/${q}`,
    every: '1 day',
    workflowType: 'settlementDay',
    args: [{ livemode: false, scheduled: true }],
  },
  {
    id: (q) => `settlement-day/live/${q}`,
    every: '1 day',
    workflowType: 'settlementDay',
    args: [{ livemode: true, scheduled: true }],
  },
  {
    id: (q) => `claim-payments-sync/${q}`,
    every: '5 minutes',
    workflowType: 'claimPaymentsSync',
    args: [{}],
  },
];

/**
 * Bank sync, one schedule per bank connection (decision 0092): every 5 minutes; the schedule id and
 * the workflow id both carry the connection (`bank-sync/{connection}`).
 */
export function bankSyncSchedules(connections: readonly { id: string }[]): ScheduleDef[] {
  return connections.map((c) => ({
    id: (q) => `bank-sync/${c.id}/${q}`,
    every: '5 minutes',
    workflowType: 'bankSync',
    args: [{ connection: c.id }],
  }));
}

/**
 * Ensures the periodic schedules exist. Created by whichever worker starts first; later starts find
 * them and leave them be. Overlaps are skipped: a slow run is never doubled.
 */
export async function ensureSchedules(
  client: Client,
  taskQueue: string,
  extra: readonly ScheduleDef[] = [],
): Promise<void> {
  for (const def of [...SCHEDULES, ...extra]) {
    try {
      await client.schedule.create({
        scheduleId: def.id(taskQueue),
        spec: { intervals: [{ every: def.every }] },
        action: { type: 'startWorkflow', workflowType: def.workflowType, taskQueue, args: def.args },
        policies: { overlap: ScheduleOverlapPolicy.SKIP },
      });
    } catch (err) {
      if (!(err instanceof ScheduleAlreadyRunning)) throw err;
    }
  }
}
