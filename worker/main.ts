import { loadConfig, requireSecretsKey } from '../stack/config';
import { createProcessLogger } from '../stack/logger';
import { READY_MESSAGES } from '../stack/log-format';
import { createKnex } from '../db/knex';
import { connectTemporal } from '../engine/temporal-client';
import { createDeliveryRepository } from '../db/webhook-deliveries';
import { createWorkerMetrics, serveMetrics } from '../stack/worker-metrics';
import { temporalConnectionOptions } from '../stack/temporal-connection';
import { createWorker, type WorkerDeps } from './create-worker';
import { installRuntimeLogger } from './runtime-logger';
import { createS3RawFileStore } from '../adapters/object-store/s3-raw-file-store';
import { bankSyncSchedules, ensureSchedules } from './schedules';
import { claimsBanksFromConfig } from '../stack/claims-bank-from-config';
import { bankConnectionsFromConfig } from '../adapters/banks/bank-connections';
import { cardAcquirerFromConfig } from '../adapters/acquirers/http-card-acquirer';
import { accessPointsFromConfig } from '../stack/access-points-from-config';
import { createSmtpMailer } from '../adapters/mail/mailer';
import { collectorsFromConfig } from '../stack/collectors-from-config';

/**
 * The worker process: runs the Temporal worker from the configuration; needs DATABASE_URL, TEMPORAL_ADDRESS and
 * SIMULATED_ACQUIRER_URL (npm start sets them). `overrides` replace configured parts (the
 * renewal-day benchmark passes its in-process acquirer).
 */
export async function runWorker(overrides: Partial<Pick<WorkerDeps, 'acquirer'>> = {}): Promise<void> {
  const config = loadConfig();
  const log = createProcessLogger('skil-worker', config);
  installRuntimeLogger(log);
  if (!config.DATABASE_URL || !config.TEMPORAL_ADDRESS) {
    throw new Error('the worker needs DATABASE_URL and TEMPORAL_ADDRESS; `npm start` runs it with both');
  }
  const acquirer = overrides.acquirer ?? cardAcquirerFromConfig(config).client;
  const secretsKey = requireSecretsKey(config);
  const knex = createKnex(config.DATABASE_URL, {
    poolMax: config.DATABASE_POOL_MAX,
    statementTimeoutMs: config.DATABASE_STATEMENT_TIMEOUT_MS,
    acquireTimeoutMs: config.DATABASE_ACQUIRE_TIMEOUT_MS,
  });
  const temporal = temporalConnectionOptions(config, config.TEMPORAL_ADDRESS);
  const { client, connection: clientConnection } = await connectTemporal(temporal, config.TEMPORAL_NAMESPACE);
  const bankConnections = bankConnectionsFromConfig(config);
  const claimsBanks = claimsBanksFromConfig(config);
  const deliveries = createDeliveryRepository(knex);
  const metrics = createWorkerMetrics({ backlog: () => deliveries.backlog() });
  const metricsServer =
    config.WORKER_METRICS_PORT === undefined
      ? undefined
      : await serveMetrics(metrics.registry, config.HOST, config.WORKER_METRICS_PORT);
  if (metricsServer) log.info({ url: metricsServer.url }, 'worker metrics');
  const { worker, connection } = await createWorker({
    knex,
    metrics,
    client,
    log,
    address: config.TEMPORAL_ADDRESS,
    ...(temporal.tls && { tls: temporal.tls }),
    ...(temporal.apiKey !== undefined && { apiKey: temporal.apiKey }),
    namespace: config.TEMPORAL_NAMESPACE,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    acquirer,
    secretsKey,
    claimsApi: claimsBanks.test,
    liveClaimsApi: claimsBanks.live,
    bankConnections,
    // Invoices go to the buyer through the access point or by mail (decision 0217).
    accessPoints: accessPointsFromConfig(config),
    ...(config.SMTP_URL !== undefined && {
      mailer: createSmtpMailer({ url: config.SMTP_URL, from: config.MAIL_FROM }),
    }),
    // Collection letters link the payer page (decision 0246).
    publicBaseUrl: config.publicBaseUrl,
    // Each environment's collector (decision 0248): test mode's the simulated one npm start runs.
    ...collectorsFromConfig(config),
    // Raw bank files in the object store when one is configured, else PostgreSQL (decisions 0145, 0179).
    ...(config.RAW_FILES_S3_ENDPOINT !== undefined && {
      rawFiles: createS3RawFileStore({
        endpoint: config.RAW_FILES_S3_ENDPOINT,
        bucket: config.RAW_FILES_S3_BUCKET!,
        region: config.RAW_FILES_S3_REGION,
        accessKeyId: config.RAW_FILES_S3_ACCESS_KEY_ID!,
        secretAccessKey: config.RAW_FILES_S3_SECRET_ACCESS_KEY!,
        prefix: config.RAW_FILES_S3_PREFIX,
      }),
    }),
    bankSyncParseWorkers: config.BANK_SYNC_PARSE_WORKERS,
    webhookAllowPrivateRanges: config.WEBHOOK_ALLOW_PRIVATE_RANGES,
    webhookAllowLoopback: config.WEBHOOK_ALLOW_LOOPBACK === 'true',
    webhookAutoDisable: {
      afterFailures: config.WEBHOOK_DISABLE_AFTER_FAILURES,
      windowHours: config.WEBHOOK_DISABLE_WINDOW_HOURS,
    },
    ...(process.env.WORKFLOW_BUNDLE_PATH && { workflowBundlePath: process.env.WORKFLOW_BUNDLE_PATH }),
  });
  // Bank sync runs every few minutes per configured bank connection (decision 0092).
  await ensureSchedules(client, config.TEMPORAL_TASK_QUEUE, bankSyncSchedules(bankConnections));
  log.info({ taskQueue: config.TEMPORAL_TASK_QUEUE }, READY_MESSAGES.worker);
  // Worker.run shuts down gracefully on SIGINT/SIGTERM (the SDK installs those handlers).
  await worker.run();
  await Promise.all([connection.close(), clientConnection.close(), knex.destroy(), metricsServer?.close()]);
}

// `npm start`, `npm run worker` and tests run this file; the renewal-day benchmark imports runWorker.
if (require.main === module)
  runWorker().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
