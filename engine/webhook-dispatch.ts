import type { Client } from '@temporalio/client';
import type { Counter } from 'prom-client';
import { WEBHOOK_RETRY_DELAYS_MS } from '../domain/webhook-schedule';
import type { Knex } from '../db/knex';
import { findChannelOwners } from '../db/notification-channels';
import { WorkflowType, deliveriesDueSignal, webhookWorkflowId, type Workflows } from '../workflows/contract';

export interface WebhookDispatcherDeps {
  client: Client;
  knex: Knex;
  taskQueue: string;
  /** Attempt delays; production uses the spec's schedule, tests a scaled copy. */
  schedule?: readonly number[];
  workflowStarts?: Counter<'workflow'>;
}

/**
 * Wakes channel workflows after their deliveries were committed. Signal-with-start both starts a
 * channel's loop the first time and wakes a sleeping one, under the channel's fixed workflow id.
 */
export function createWebhookDispatcher(deps: WebhookDispatcherDeps) {
  const schedule = [...(deps.schedule ?? WEBHOOK_RETRY_DELAYS_MS)];
  return {
    async wake(channelIds: readonly string[]): Promise<void> {
      const unique = [...new Set(channelIds)];
      if (unique.length === 0) return;
      const rows = await findChannelOwners(deps.knex, unique);
      await Promise.all(
        rows.map(async (row) => {
          await deps.client.workflow.signalWithStart<Workflows['webhookChannel'], []>(
            WorkflowType.webhookChannel,
            {
              workflowId: webhookWorkflowId(row.id),
              taskQueue: deps.taskQueue,
              args: [{ merchantId: row.merchant_id, livemode: row.livemode, channelId: row.id, schedule }],
              signal: deliveriesDueSignal,
              signalArgs: [],
            },
          );
          deps.workflowStarts?.inc({ workflow: WorkflowType.webhookChannel });
        }),
      );
    },
  };
}

export type WebhookDispatcher = ReturnType<typeof createWebhookDispatcher>;
