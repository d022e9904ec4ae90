import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client } from '@temporalio/client';
import type { Duration } from '@temporalio/common';
import { WorkflowType, scheduleId, type Workflows } from '../workflows/contract';

interface ScheduleDef {
  /** Schedule ids carry the task queue (workflows/contract.ts scheduleId). */
  id: (taskQueue: string) => string;
  every: Duration;
  workflowType: keyof Workflows;
  args: unknown[];
}

export const SCHEDULES: readonly ScheduleDef[] = [
  // Wakes channel workflows whose wake-up signal was lost (decision 0005).
  {
    id: scheduleId.webhookRelay,
    every: '1 minute',
    workflowType: WorkflowType.webhookRelay,
    args: [{ graceMs: 60_000 }],
  },
  // Forgets idempotency keys older than 24 hours (decision 0003).
  { id: scheduleId.maintenance, every: '1 hour', workflowType: WorkflowType.maintenance, args: [] },
  // Expires open checkout sessions past their 24 hours (spec §3; reads also expire lazily).
  {
    id: scheduleId.checkoutExpiry,
    every: '5 minutes',
    workflowType: WorkflowType.checkoutExpiry,
    args: [{}],
  },
  // Renews the subscriptions due, per environment (architecture, billing run; decision 0042).
  {
    id: (q) => scheduleId.billingRun(true, q),
    every: '15 minutes',
    workflowType: WorkflowType.billingRun,
    args: [{ livemode: true }],
  },
  {
    id: (q) => scheduleId.billingRun(false, q),
    every: '15 minutes',
    workflowType: WorkflowType.billingRun,
    args: [{ livemode: false }],
  },
  // Issues pending claims at the bank in batches, and reads their payments (decisions 0061, 0062).
  {
    id: (q) => scheduleId.claimBatch(false, q),
    every: '1 minute',
    workflowType: WorkflowType.claimBatch,
    args: [{ livemode: false }],
  },
  {
    id: (q) => scheduleId.claimBatch(true, q),
    every: '1 minute',
    workflowType: WorkflowType.claimBatch,
    args: [{ livemode: true }],
  },
  // Opens the day's settlement runs at 00:00 UTC (Iceland time); closed days are skipped (decision 0093).
  {
    id: (q) => scheduleId.settlementDay(false, q),
    every: '1 day',
    workflowType: WorkflowType.settlementDay,
    args: [{ livemode: false, scheduled: true }],
  },
  {
    id: (q) => scheduleId.settlementDay(true, q),
    every: '1 day',
    workflowType: WorkflowType.settlementDay,
    args: [{ livemode: true, scheduled: true }],
  },
  {
    id: scheduleId.claimPaymentsSync,
    every: '5 minutes',
    workflowType: WorkflowType.claimPaymentsSync,
    args: [{}],
  },
  // Takes the collection steps of overdue kröfur due today (decision 0246). Hourly rather than once
  // at midnight: a run finds nothing due twice (steps are unique per krafa and step), and a day's
  // steps are taken within the hour after it starts even when a run was missed.
  {
    id: (q) => scheduleId.collectionRun(false, q),
    every: '1 hour',
    workflowType: WorkflowType.collectionRun,
    args: [{ livemode: false }],
  },
  {
    id: (q) => scheduleId.collectionRun(true, q),
    every: '1 hour',
    workflowType: WorkflowType.collectionRun,
    args: [{ livemode: true }],
  },
  // Starts invoice deliveries whose workflow did not start after their invoice's commit (decision 0217).
  {
    id: scheduleId.invoiceDeliveryRelay,
    every: '1 minute',
    workflowType: WorkflowType.invoiceDeliveryRelay,
    args: [{ graceMs: 60_000 }],
  },
];

/**
 * Bank sync, one schedule per bank connection (decision 0092): every 5 minutes; the schedule id and
 * the workflow id both carry the connection (`bank-sync/{connection}`).
 */
export function bankSyncSchedules(connections: readonly { id: string }[]): ScheduleDef[] {
  return connections.map((c) => ({
    id: (q) => scheduleId.bankSync(c.id, q),
    every: '5 minutes',
    workflowType: WorkflowType.bankSync,
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
