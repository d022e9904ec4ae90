import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client } from '@temporalio/client';

/** One schedule per task queue, so separate deployments (and test runs) sharing a namespace stay apart. */
export function relayScheduleId(taskQueue: string): string {
  return `webhooks-relay/${taskQueue}`;
}

/**
 * Ensures the schedule that runs the webhook relay every minute exists. Created by whichever worker
 * starts first; later starts find it and leave it be.
 */
export async function ensureRelaySchedule(client: Client, taskQueue: string): Promise<void> {
  try {
    await client.schedule.create({
      scheduleId: relayScheduleId(taskQueue),
      spec: { intervals: [{ every: '1 minute' }] },
      action: {
        type: 'startWorkflow',
        workflowType: 'webhookRelay',
        taskQueue,
        args: [{ graceMs: 60_000 }],
      },
      policies: { overlap: ScheduleOverlapPolicy.SKIP },
    });
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
  }
}
