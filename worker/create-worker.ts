import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import type { Client } from '@temporalio/client';
import type { Knex } from '../db/knex';
import type { Logger } from '../stack/logger';
import { createWebhookActivities } from '../activities/webhooks';
import { createMaintenanceActivities } from '../activities/maintenance';
import { createCheckoutActivities } from '../activities/checkout';
import { createWebhookDispatcher } from '../engine/webhook-dispatch';

export interface WorkerDeps {
  knex: Knex;
  client: Client;
  log: Logger;
  address: string;
  namespace: string;
  taskQueue: string;
  /** A prebuilt workflow bundle (tests build it once per run); otherwise the worker bundles workflows/. */
  workflowBundlePath?: string;
  webhookAttemptTimeoutMs?: number;
}

/** The one place that assembles activities and creates the Temporal worker. */
export async function createWorker(
  deps: WorkerDeps,
): Promise<{ worker: Worker; connection: NativeConnection }> {
  const connection = await NativeConnection.connect({ address: deps.address });
  const dispatcher = createWebhookDispatcher({
    client: deps.client,
    knex: deps.knex,
    taskQueue: deps.taskQueue,
  });
  const activities = {
    ...createMaintenanceActivities({ knex: deps.knex }),
    ...createCheckoutActivities({ knex: deps.knex }),
    ...createWebhookActivities({
      knex: deps.knex,
      log: deps.log.child({ area: 'webhooks' }),
      wakeChannels: (ids) => dispatcher.wake(ids),
      ...(deps.webhookAttemptTimeoutMs !== undefined && { attemptTimeoutMs: deps.webhookAttemptTimeoutMs }),
    }),
  };
  const workflowSource: Pick<WorkerOptions, 'workflowBundle' | 'workflowsPath'> = deps.workflowBundlePath
    ? { workflowBundle: { codePath: deps.workflowBundlePath } }
    : { workflowsPath: require.resolve('../workflows') };
  const worker = await Worker.create({
    connection,
    namespace: deps.namespace,
    taskQueue: deps.taskQueue,
    activities,
    ...workflowSource,
  });
  return { worker, connection };
}
