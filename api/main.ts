import { loadConfig, requireSecretsKey } from '../stack/config';
import { createProcessLogger } from '../stack/logger';
import { READY_MESSAGES } from '../stack/log-format';
import { createKnex } from '../db/knex';
import { connectTemporal } from '../engine/temporal-client';
import { temporalConnectionOptions } from '../stack/temporal-connection';
import { createWebhookDispatcher } from '../engine/webhook-dispatch';
import { createMetrics } from './metrics';
import { createApp } from './app';
import { claimsBanksFromConfig } from '../stack/claims-bank-from-config';
import { createTestBankPayer } from '../adapters/banks/test-bank-payer';
import { cardAcquirerFromConfig } from '../adapters/acquirers/http-card-acquirer';
import { createRskCompanyRegistry } from '../adapters/registry/rsk-company-registry';
import { createTestCompanyRegistry } from '../domain/company-registry';
import { simulatedCarrierConnections } from '../adapters/carriers/carriers';
import { createSmtpMailer, unconfiguredMailer } from '../adapters/mail/mailer';
import { createApiKeyCache } from '../services/api-key-cache';
import { listenForApiKeyChanges } from '../db/api-key-changes';
import { holdIdleConnections } from './idle-connections';

/** Runs the HTTP API; needs DATABASE_URL, TEMPORAL_ADDRESS and SIMULATED_ACQUIRER_URL (npm start sets them). */
async function main(): Promise<void> {
  const config = loadConfig();
  const log = createProcessLogger('skil-api', config, { asyncWrites: true });
  if (!config.DATABASE_URL || !config.TEMPORAL_ADDRESS) {
    throw new Error('the API needs DATABASE_URL and TEMPORAL_ADDRESS; `npm start` runs it with both');
  }
  const acquirer = cardAcquirerFromConfig(config);
  const claimsBanks = claimsBanksFromConfig(config);
  const secretsKey = requireSecretsKey(config);
  const knex = createKnex(config.DATABASE_URL, {
    poolMax: config.DATABASE_POOL_MAX,
    statementTimeoutMs: config.DATABASE_STATEMENT_TIMEOUT_MS,
    acquireTimeoutMs: config.DATABASE_ACQUIRE_TIMEOUT_MS,
  });
  const { client, connection } = await connectTemporal(
    temporalConnectionOptions(config, config.TEMPORAL_ADDRESS),
    config.TEMPORAL_NAMESPACE,
  );
  const metrics = createMetrics(knex);
  const apiKeyCache = createApiKeyCache();
  const stopListening = listenForApiKeyChanges(config.DATABASE_URL, {
    ...apiKeyCache.handlers,
    lost: (err) => {
      apiKeyCache.handlers.lost(err);
      log.warn({ err }, 'API key change notices lost; keys are looked up every request until they resume');
    },
  });
  const dispatcher = createWebhookDispatcher({
    client,
    knex,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    workflowStarts: metrics.workflowStarts,
  });
  const mailer = config.SMTP_URL
    ? createSmtpMailer({ url: config.SMTP_URL, from: config.MAIL_FROM })
    : unconfiguredMailer();
  const app = createApp({
    knex,
    mailer,
    log,
    metrics,
    temporal: connection,
    dispatcher,
    publicBaseUrl: config.publicBaseUrl,
    bodyLimitBytes: config.BODY_LIMIT_BYTES,
    acquirer,
    secretsKey,
    claimsApi: claimsBanks.test,
    liveClaimsApi: claimsBanks.live,
    ...(config.SIMULATED_BANK_URL && { testBank: createTestBankPayer(config.SIMULATED_BANK_URL) }),
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    temporalNamespace: config.TEMPORAL_NAMESPACE,
    checkResponses: config.CHECK_RESPONSES === 'true',
    ...(config.SIMULATED_CARRIERS_URL && {
      carriers: simulatedCarrierConnections({ url: config.SIMULATED_CARRIERS_URL }),
    }),
    // Live registry lookups ask Skatturinn's register when REGISTRY_URL names it (decision 0166).
    ...(config.REGISTRY_URL && {
      registries: {
        test: createTestCompanyRegistry(),
        live: createRskCompanyRegistry({
          baseUrl: config.REGISTRY_URL,
          xroadClient: config.REGISTRY_XROAD_CLIENT,
        }),
      },
    }),
    webhookAllowPrivateRanges: config.WEBHOOK_ALLOW_PRIVATE_RANGES,
    webhookAllowLoopback: config.WEBHOOK_ALLOW_LOOPBACK === 'true',
    apiKeyCache,
    rateLimits: {
      apiLive: config.RATE_LIMIT_API_LIVE,
      apiTest: config.RATE_LIMIT_API_TEST,
      deviceAuthorize: config.RATE_LIMIT_DEVICE_AUTHORIZE,
      deviceToken: config.RATE_LIMIT_DEVICE_TOKEN,
      signIn: config.RATE_LIMIT_SIGN_IN,
      signUp: config.RATE_LIMIT_SIGN_UP,
      pages: config.RATE_LIMIT_PAGES,
      apiKeyFailures: config.RATE_LIMIT_API_KEY_FAILURES,
    },
    trustProxy: config.TRUST_PROXY,
    devicePollIntervalSeconds: config.DEVICE_POLL_INTERVAL_SECONDS,
    webhookAutoDisable: {
      afterFailures: config.WEBHOOK_DISABLE_AFTER_FAILURES,
      windowHours: config.WEBHOOK_DISABLE_WINDOW_HOURS,
    },
  });
  const server = holdIdleConnections(
    app.listen(config.PORT, config.HOST, () => {
      log.info({ port: config.PORT }, READY_MESSAGES.api);
    }),
  );
  const stop = () => {
    log.info('API stopping');
    server.close(() => {
      void Promise.all([connection.close(), stopListening(), knex.destroy()]).finally(() => process.exit(0));
    });
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
