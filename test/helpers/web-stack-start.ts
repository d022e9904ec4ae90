// How a web stack starts (test/helpers/web-stack.ts): loaded in the jest worker's own realm, or by a
// file run outside jest's environment, never into a file's registry for nothing (decision 0200).
import type { Server } from 'node:http';
import { createApp } from '../../api/app';
import { createMetrics } from '../../api/metrics';
import { createLogger } from '../../stack/logger';
import { freePort } from '../../stack/free-port';
import { createMerchantRepository } from '../../db/merchants';
import { createApiKeyRepository } from '../../db/api-keys';
import type { WebhookDispatcher } from '../../engine/webhook-dispatch';
import { createTestDatabase } from './database';
import { httpAcquirerAt } from '../../adapters/acquirers/http-card-acquirer';
import { startTestAcquirer } from './acquirer';
import { TEST_SECRETS_KEY } from './secrets-key';
import { startTestMail } from './mail';
import type { WebStack, WebStackOptions } from './web-stack';
import { holdIdleConnections } from '../../api/idle-connections';

/**
 * The API on its own database, listening on a port chosen first so that PUBLIC_BASE_URL can be
 * the real address: the browser follows verification_url exactly as the API returns it. No
 * Temporal connection: the flows under test start no workflows.
 */
export async function startWebStack(opts: WebStackOptions = {}): Promise<WebStack> {
  const db = await createTestDatabase();
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const noWebhooks: WebhookDispatcher = { wake: () => Promise.resolve() };
  const acquirer = await startTestAcquirer();
  const mail = await startTestMail();
  const app = createApp({
    mailer: mail.mailer,
    knex: db.knex,
    log: createLogger('test-web', process.env.TEST_LOG_LEVEL ?? 'silent'),
    metrics: createMetrics(db.knex),
    temporal: null,
    dispatcher: noWebhooks,
    publicBaseUrl: url,
    bodyLimitBytes: 256 * 1024,
    acquirer: httpAcquirerAt(acquirer.url),
    secretsKey: TEST_SECRETS_KEY,
    webhookAllowLoopback: true,
    checkResponses: true,
    ...(opts.allowPrivateRanges && { webhookAllowPrivateRanges: opts.allowPrivateRanges }),
  });
  const server: Server = await new Promise((resolve) => {
    const s = holdIdleConnections(app.listen(port, '127.0.0.1', () => resolve(s)));
  });
  return {
    url,
    knex: db.knex,
    db,
    mail: mail.catcher,
    async merchant(name = 'Browser merchant') {
      const m = await createMerchantRepository(db.knex).create({ name });
      const { secret } = await createApiKeyRepository(db.knex).create({ merchantId: m.id, livemode: false });
      return { id: m.id, testKey: secret };
    },
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await acquirer.stop();
      await mail.stop();
      await db.drop();
    },
  };
}
