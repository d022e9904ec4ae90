import express, { type Express } from 'express';
import type { Connection } from '@temporalio/client';
import type { Knex } from '../db/knex';
import type { Logger } from '../stack/logger';
import type { WebhookDispatcher } from '../engine/webhook-dispatch';
import type { OperationDoc } from './openapi';
import type { Metrics } from './metrics';
import { createApiKeyRepository } from '../db/api-keys';
import { createEventRepository } from '../db/events';
import { createIdempotencyRepository } from '../db/idempotency';
import { requestContext } from './middleware/request-context';
import { bodyErrors, bodyParsers, requireObjectBody } from './middleware/body';
import { authenticate } from './middleware/auth';
import { idempotency } from './middleware/idempotency';
import { errorHandler, routeNotFound } from './middleware/errors';
import { systemRouter } from './routes/system';
import { eventsRouter } from './routes/events';
import { notificationChannelsRouter } from './routes/notification-channels';

export interface AppDeps {
  knex: Knex;
  log: Logger;
  metrics: Metrics;
  temporal: Connection | null;
  dispatcher: WebhookDispatcher;
  publicBaseUrl: string;
  bodyLimitBytes: number;
}

/** The HTTP API: thin routers over repositories and workflow starts (architecture, "api"). */
export function createApp(deps: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', 'extended');
  const docs: OperationDoc[] = [];

  app.use(requestContext(deps.log, deps.metrics));
  app.use(
    systemRouter(
      { knex: deps.knex, temporal: deps.temporal, metrics: deps.metrics, publicBaseUrl: deps.publicBaseUrl },
      docs,
    ),
  );

  const v1 = express.Router();
  v1.use(authenticate(createApiKeyRepository(deps.knex), deps.log));
  v1.use(...bodyParsers(deps.bodyLimitBytes), bodyErrors(deps.bodyLimitBytes), requireObjectBody);
  v1.use(idempotency(createIdempotencyRepository(deps.knex), deps.log));
  v1.use(eventsRouter({ events: createEventRepository(deps.knex) }, docs));
  v1.use(notificationChannelsRouter({ knex: deps.knex, log: deps.log, dispatcher: deps.dispatcher }, docs));
  // Routers declare full paths (they double as OpenAPI paths), so v1 is entered, not mounted.
  app.use((req, res, next) => (req.path.startsWith('/v1/') ? v1(req, res, next) : next()));

  app.use(routeNotFound);
  app.use(bodyErrors(deps.bodyLimitBytes));
  app.use(errorHandler(deps.log));
  return app;
}
