/*
 * How a test stack starts (test/helpers/stack.ts): loaded only by files that start one of their own,
 * so a file on the shared stack does not load the API, the worker and the simulators (about 1,900
 * modules) into its module registry.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, Runtime, type Worker } from '@temporalio/worker';
import { createApp } from '../../api/app';
import { createTestBankPayer } from '../../adapters/banks/test-bank-payer';
import { createMetrics } from '../../api/metrics';
import { createWebhookDispatcher } from '../../engine/webhook-dispatch';
import { createWorker } from '../../worker/create-worker';
import { createMerchantRepository } from '../../db/merchants';
import { createApiKeyRepository } from '../../db/api-keys';
import { createLogger } from '../../stack/logger';
import { randomBase62 } from '../../domain/ids';
import { freePort } from '../../stack/free-port';
import { createTestDatabase } from './database';
import { simulatedBankConnection, startValidatedBank, withFilesView } from './simulated-bank';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { httpAcquirerAt } from '../../adapters/acquirers/http-card-acquirer';
import { createEnvironmentAcquirer } from '../../adapters/acquirers/environment-acquirer';
import { createTestCompanyRegistry } from '../../domain/company-registry';
import { startTestAcquirer } from './acquirer';
import type { ClaimsApi } from '../../adapters/banks/claims-api';
import { checkLedger } from './ledger-invariant';
import { TEST_SECRETS_KEY } from './secrets-key';
import { callApi, type TestStack, type TestStackOptions } from './stack';
import { startTestMail } from './mail';
import { startSimulatedCarriers } from '../../simulators/carriers/service';
import { simulatedCarrierConnections } from '../../adapters/carriers/carriers';
import { httpAccessPoint } from '../../adapters/access-point/http-access-point';
import { startTestAccessPoint } from './access-point';
import { holdIdleConnections } from '../../api/idle-connections';

/**
 * The API and, unless told otherwise, a worker, on this file's own database and task queue, against
 * the run's real PostgreSQL and Temporal dev server.
 */
export async function startStack(opts: TestStackOptions = {}): Promise<TestStack> {
  const log = createLogger('test', process.env.TEST_LOG_LEVEL ?? 'silent');
  const address = process.env.SKIL_TEST_TEMPORAL_ADDRESS!;
  const db = await createTestDatabase();
  const knex = db.knex;
  const connection = await Connection.connect({ address });
  const client = new Client({ connection, namespace: 'default' });
  const taskQueue = `test-${randomBase62(8)}`;
  const metrics = createMetrics(knex);
  const dispatcher = createWebhookDispatcher({
    client,
    knex,
    taskQueue,
    workflowStarts: metrics.workflowStarts,
    ...(opts.schedule && { schedule: opts.schedule }),
  });
  const sftpRoot = opts.bankFiles ? mkdtempSync(path.join(tmpdir(), 'skil-bank-sftp-')) : undefined;
  const sftpPassword = randomBytes(18).toString('base64url');
  const bank =
    opts.bank || opts.bankFiles
      ? await startValidatedBank({
          ...opts.bankOptions,
          ...(sftpRoot
            ? {
                files: {
                  rootDir: sftpRoot,
                  sftp: { port: 0, users: [{ username: 'skil', password: sftpPassword }] },
                },
              }
            : {}),
        })
      : null;
  const claimsApi = bank?.client();
  let bankFiles: TestStack['bankFiles'] = null;
  if (bank && sftpRoot) {
    const sim = withFilesView(bank.bank, { rootDir: sftpRoot, username: 'skil', password: sftpPassword });
    bankFiles = {
      sim,
      connection: simulatedBankConnection(sim),
      filesDir: mkdtempSync(path.join(tmpdir(), 'skil-bank-files-')),
    };
  }
  // The acquirer posts dispute notifications to the API (decision 0155), whose address is known
  // once it listens, signed with a secret of this stack.
  const listening: { url?: string } = {};
  const notificationSecret = randomBytes(24).toString('base64url');
  const acquirer = await startTestAcquirer({
    bankUrl: bankFiles?.sim.baseUrl,
    notifyUrl: () => listening.url && `${listening.url}/acquirer/notifications`,
    notificationSecret,
    ...(opts.acquirerLatencyMs !== undefined && { latencyMs: opts.acquirerLatencyMs }),
  });
  const simulatedClient = httpAcquirerAt(acquirer.url, notificationSecret);
  const acquirerClient = opts.liveAcquirer
    ? { ...simulatedClient, client: createEnvironmentAcquirer(simulatedClient.client, opts.liveAcquirer) }
    : simulatedClient;
  const carriers = await startSimulatedCarriers();
  // Test-mode e-invoices go to the simulated access point, which validates them with the official
  // artefacts (decision 0216).
  const accessPoint = await startTestAccessPoint();
  const port = opts.realBaseUrl ? await freePort() : 0;
  const mail = await startTestMail();
  const app = createApp({
    knex,
    mailer: mail.mailer,
    log,
    metrics,
    temporal: connection,
    dispatcher,
    publicBaseUrl: opts.realBaseUrl ? `http://127.0.0.1:${port}` : 'http://localhost',
    bodyLimitBytes: opts.bodyLimitBytes ?? 256 * 1024,
    acquirer: acquirerClient,
    ...(opts.liveRegistry && { registries: { test: createTestCompanyRegistry(), live: opts.liveRegistry } }),
    secretsKey: TEST_SECRETS_KEY,
    // Tests' receivers listen on 127.0.0.1, as `npm start`'s local development does (decision 0225).
    webhookAllowLoopback: true,
    carriers: simulatedCarrierConnections(carriers),
    ...(opts.rateLimits && { rateLimits: opts.rateLimits }),
    ...(claimsApi && { claimsApi }),
    ...(opts.liveClaimsApi && { liveClaimsApi: opts.liveClaimsApi }),
    ...(bank && { testBank: createTestBankPayer(bank.bank.url) }),
    // Workflows the API starts (subscriptions, clock advances, claim batches) run on this file's worker.
    taskQueue,
    // Every response is held to its declared schema, so the OpenAPI document stays true.
    checkResponses: true,
  });
  const server: Server = await new Promise((resolve) => {
    const s = holdIdleConnections(app.listen(port, '127.0.0.1', () => resolve(s)));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  listening.url = url;

  let worker: { worker: Worker; running: Promise<void>; close: () => Promise<void> } | null = null;
  const startWorker = async (overrides: { liveClaimsApi?: ClaimsApi } = {}) => {
    const liveClaimsApi = overrides.liveClaimsApi ?? opts.liveClaimsApi;
    const created = await createWorker({
      knex,
      client,
      log,
      address,
      namespace: 'default',
      taskQueue,
      secretsKey: TEST_SECRETS_KEY,
      webhookAllowLoopback: true,
      workflowBundlePath: process.env.SKIL_TEST_WORKFLOW_BUNDLE!,
      ...(claimsApi && { claimsApi }),
      ...(liveClaimsApi && { liveClaimsApi }),
      acquirer: acquirerClient.client,
      accessPoints: { test: httpAccessPoint({ baseUrl: accessPoint.url, token: accessPoint.token }) },
      mailer: mail.mailer,
      publicBaseUrl: url,
      ...(opts.collector && { collector: opts.collector }),
      ...(bankFiles && { bankConnections: [bankFiles.connection] }),
      ...(opts.webhookAttemptTimeoutMs !== undefined && {
        webhookAttemptTimeoutMs: opts.webhookAttemptTimeoutMs,
      }),
      ...(opts.webhookClock && { webhookClock: opts.webhookClock }),
      ...(opts.settlementAutoApproveMaxNet !== undefined && {
        settlementAutoApproveMaxNet: opts.settlementAutoApproveMaxNet,
      }),
    });
    worker = {
      worker: created.worker,
      running: created.worker.run(),
      close: () => created.connection.close(),
    };
  };
  const stopWorker = async () => {
    if (!worker) return;
    const w = worker;
    worker = null;
    w.worker.shutdown();
    await w.running;
    await w.close();
  };
  if (opts.worker !== false) await startWorker();

  return {
    url,
    knex,
    db,
    client,
    taskQueue,
    bank,
    bankFiles,
    acquirer,
    carriers,
    accessPoint,
    mail: mail.catcher,
    async merchant(name = 'Test merchant') {
      const m = await createMerchantRepository(knex).create({ name });
      const keys = createApiKeyRepository(knex);
      const test = await keys.create({ merchantId: m.id, livemode: false });
      const live = await keys.create({ merchantId: m.id, livemode: true });
      return { id: m.id, testKey: test.secret, liveKey: live.secret };
    },
    api: (key, path, init) => callApi(url, key, path, init),
    startWorker,
    stopWorker,
    async stop() {
      await stopWorker();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await connection.close();
      claimsApi?.close();
      await acquirer.stop();
      await carriers.stop();
      await accessPoint.stop();
      await mail.stop();
      await bank?.bank.stop();
      // After every file the ledger invariant holds on its database (decision 0107); the
      // API and the worker are stopped, so nothing moves money while it is read.
      const ledger = await checkLedger(knex).catch((err: unknown) => ({ violations: [String(err)] }));
      await db.drop();
      // Every exchange with the simulated bank in any test that starts it
      // validates against IOBWS-Claims3.1.yaml; a file whose traffic does not fails in afterAll.
      const problems = bank?.problems() ?? [];
      if (problems.length > 0)
        throw new Error(`simulated bank traffic breaks IOBWS-Claims3.1.yaml:\n${problems.join('\n')}`);
      if (ledger.violations.length > 0)
        throw new Error(`ledger invariant broken (decision 0107):\n${ledger.violations.join('\n')}`);
    },
  };
}

// The SDK's default runtime logs every worker state change at INFO; tests want warnings only.
try {
  Runtime.install({ logger: new DefaultLogger('WARN') });
} catch {
  // Already installed by an earlier file in this jest worker process.
}
