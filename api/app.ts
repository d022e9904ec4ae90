import express, { type Express } from 'express';
import { SDK_SCRIPT_DOC, buildOpenApi, type OperationDoc } from './openapi';
import { checkResponses } from './route';
import type { Metrics } from './metrics';
import { composeServices, type ServiceDeps } from './compose';
import { requestContext } from './middleware/request-context';
import { bodyErrors, bodyParsers, requireObjectBody } from './middleware/body';
import { authenticate } from './middleware/auth';
import { checkInput } from './middleware/input-check';
import { idempotency } from './middleware/idempotency';
import { errorHandler, routeNotFound } from './middleware/errors';
import { limitPerAddress, limitPerApiKey } from './middleware/rate-limit';
import { auditWrites } from './middleware/audit';
import { systemRouter } from './routes/system';
import { eventsRouter } from './routes/events';
import { notificationChannelsRouter } from './routes/notification-channels';
import { webhookDeliveriesRouter } from './routes/webhook-deliveries';
import { merchantRouter } from './routes/merchant';
import { deviceRouter } from './routes/device';
import { operatorRouter } from './routes/operator';
import { operatorCollectionRouter } from './routes/operator-collection';
import { collectionRouter } from './routes/collection';
import { pages } from '../web';
import { productsRouter } from './routes/products';
import { pricesRouter } from './routes/prices';
import { customersRouter } from './routes/customers';
import { couponsRouter } from './routes/coupons';
import { promotionCodesRouter } from './routes/promotion-codes';
import { checkoutSessionsRouter } from './routes/checkout-sessions';
import { paymentIntentsRouter } from './routes/payment-intents';
import { invoicesRouter } from './routes/invoices';
import { reportsRouter } from './routes/reports';
import { paymentMethodsRouter } from './routes/payment-methods';
import { paymentLinksRouter } from './routes/payment-links';
import { claimsRouter } from './routes/claims';
import { subscriptionsRouter } from './routes/subscriptions';
import { testClocksRouter } from './routes/test-clocks';
import { billingPortalRouter } from './routes/billing-portal';
import { settlementOperatorRouter, settlementRunsRouter } from './routes/settlement-runs';
import { posPublicRouter, posRouter } from './routes/pos';
import { deliveryRouter } from './routes/delivery';
import { platformConnectionsRouter } from './routes/platform-connections';
import { platformWebhooksRouter } from './routes/platform-webhooks';
import { acquirerNotificationsRouter, disputesRouter } from './routes/disputes';
import { createMcpTools, mcpRouter } from './mcp/server';

export interface AppDeps extends ServiceDeps {
  metrics: Metrics;
  bodyLimitBytes: number;
  /** Hold every declared route's response to its schema (`CHECK_RESPONSES`; on in the test stack). */
  checkResponses?: boolean;
  /** Express's `trust proxy`: whose X-Forwarded-For names the client (TRUST_PROXY); default none. */
  trustProxy?: false | number | string[];
}

/**
 * The HTTP API: middleware, and the routers, pages and MCP tools mounted over the services that
 * `composeServices` builds once for the process (architecture, "api").
 */
export function createApp(deps: AppDeps): Express {
  const services = composeServices(deps);
  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', 'extended');
  app.set('trust proxy', deps.trustProxy ?? false);
  const limiter =
    deps.rateLimits && services.rateLimiter
      ? { limits: deps.rateLimits, shared: services.rateLimiter }
      : null;
  const docs: OperationDoc[] = [];
  // The OpenAPI document, for `/v1/openapi.json` and the reference at /docs: built on the first
  // request, when every router has declared its operations, and kept (building it converts every
  // schema, 0.1–0.3 CPU-seconds on the CI machine).
  let openApi: Record<string, unknown> | undefined;
  const openApiDocument = () => (openApi ??= buildOpenApi(docs, deps.publicBaseUrl));

  app.use(requestContext(deps.log, deps.metrics));
  if (deps.checkResponses) app.use(checkResponses());
  app.use(
    systemRouter(
      {
        checkReadiness: services.readiness,
        metrics: deps.metrics,
        publicBaseUrl: deps.publicBaseUrl,
        openApiDocument,
      },
      docs,
    ),
  );

  // Rate limits per client address on what needs no key (device flow, sign-in, pages); /health,
  // /ready and /metrics were answered above and are never limited (decision 0110).
  if (limiter) app.use(limitPerAddress(limiter.shared, limiter.limits, deps.log));
  // Public part of v1, before the API-key check: device authorization needs no key (spec §4.2), and
  // the operator API checks its own credential.
  const publicV1 = express.Router();
  publicV1.use(
    ...bodyParsers(deps.bodyLimitBytes),
    bodyErrors(deps.bodyLimitBytes),
    requireObjectBody,
    checkInput,
  );
  publicV1.use(deviceRouter({ device: services.device }, docs));
  const { access, settlement } = services;
  publicV1.use(posPublicRouter({ setup: services.pos.setup }, docs));
  // Settlement's operator routes (approve, settlement days) sit before the general operator router.
  publicV1.use(settlementOperatorRouter({ access, settlement }));
  publicV1.use(
    operatorCollectionRouter({
      access,
      rates: services.defaultInterestRates,
      policies: services.collectionPolicies,
    }),
  );
  publicV1.use(operatorRouter({ access, merchants: services.merchantReview }));
  app.use((req, res, next) =>
    /^\/v1\/(device|operator)\/|^\/v1\/pos\/(devices|terminal_announcements)$/.test(req.path)
      ? publicV1(req, res, next)
      : next(),
  );
  // The card acquirer's dispute notifications (decision 0155): no key; its signature over the raw body.
  app.use(
    acquirerNotificationsRouter({
      bodyLimitBytes: deps.bodyLimitBytes,
      notifications: services.disputeNotifications,
    }),
  );
  // Inbound platform webhooks (spec §4.7): no key; the platform's signature over the raw body.
  app.use(
    platformWebhooksRouter({ bodyLimitBytes: deps.bodyLimitBytes, inbound: services.inboundWebhooks }, docs),
  );

  const v1 = express.Router();
  const guard = services.keyGuessGuard ?? undefined;
  v1.use(authenticate(access, services.pos.access, guard));
  if (limiter) v1.use(limitPerApiKey(limiter.shared, limiter.limits, deps.log));
  v1.use(...bodyParsers(deps.bodyLimitBytes), bodyErrors(deps.bodyLimitBytes), requireObjectBody, checkInput);
  v1.use(auditWrites(services.auditLog, deps.log));
  v1.use(idempotency(services.idempotency, deps.log));
  v1.use(eventsRouter({ events: services.events }, docs));
  v1.use(notificationChannelsRouter({ channels: services.channels }, docs));
  v1.use(webhookDeliveriesRouter({ deliveries: services.webhookDeliveries }, docs));
  v1.use(
    merchantRouter(
      { merchants: services.merchants, themes: services.themes, lookUpCompany: services.lookUpCompany },
      docs,
    ),
  );
  v1.use(productsRouter({ products: services.products, variants: services.variants }, docs));
  v1.use(pricesRouter({ prices: services.prices }, docs));
  v1.use(customersRouter({ customers: services.customers }, docs));
  v1.use(couponsRouter({ coupons: services.coupons }, docs));
  v1.use(promotionCodesRouter({ promotionCodes: services.promotionCodes }, docs));
  v1.use(checkoutSessionsRouter({ checkout: services.checkout }, docs));
  v1.use(paymentIntentsRouter({ paymentIntents: services.paymentIntents, refunds: services.refunds }, docs));
  v1.use(invoicesRouter({ invoices: services.invoices }, docs));
  v1.use(reportsRouter({ vatReport: services.vatReport, journal: services.journal, log: deps.log }, docs));
  v1.use(disputesRouter({ disputes: services.disputes }, docs));
  v1.use(
    posRouter({ setup: services.pos.setup, till: services.pos.till, receipts: services.pos.receipts }, docs),
  );
  v1.use(paymentMethodsRouter({ paymentMethods: services.paymentMethods }, docs));
  v1.use(subscriptionsRouter({ subscriptions: services.subscriptions }, docs));
  v1.use(testClocksRouter({ testClocks: services.testClocks }, docs));
  v1.use(billingPortalRouter({ billingPortal: services.billingPortal }, docs));
  // The pages (hosted checkout, short URLs, payment links, the browser SDK, the customer portal, the
  // dashboard and the device page) need no API key, so they come before v1's key check.
  docs.push(SDK_SCRIPT_DOC);
  app.use(
    pages({
      services: services.pages,
      log: deps.log,
      publicBaseUrl: deps.publicBaseUrl,
      acquirerOrigin: deps.acquirer.origin,
      openApiDocument,
    }),
  );
  v1.use(collectionRouter({ policies: services.collectionPolicies, collection: services.collection }, docs));
  v1.use(claimsRouter({ claims: services.claims, testPayments: services.claimTestPayments }, docs));
  v1.use(settlementRunsRouter({ settlement }, docs));
  v1.use(paymentLinksRouter({ paymentLinks: services.paymentLinks }, docs));
  v1.use(deliveryRouter({ carriers: services.carriers, deliveries: services.deliveries }, docs));
  v1.use(platformConnectionsRouter({ connections: services.platformConnections }, docs));

  // The MCP server (decision 0120): the same services, schemas and idempotency store as v1.
  app.use(
    mcpRouter({
      access,
      ...(guard && { keyGuessGuard: guard }),
      auditLog: services.auditLog,
      log: deps.log,
      bodyLimitBytes: deps.bodyLimitBytes,
      limitPerKey: limiter ? limitPerApiKey(limiter.shared, limiter.limits, deps.log) : undefined,
      tools: createMcpTools({
        services: {
          checkout: services.checkout,
          paymentLinks: services.paymentLinks,
          customers: services.customers,
          products: services.products,
          prices: services.prices,
          subscriptions: services.subscriptions,
          claims: services.claims,
          invoices: services.invoices,
          paymentIntents: services.paymentIntents,
          refunds: services.refunds,
          events: services.events,
          settlement,
        },
        dryRun: services.dryRun,
        idempotency: services.idempotency,
        safety: services.agentSafety,
      }),
    }),
  );
  // Routers declare full paths (they double as OpenAPI paths), so v1 is entered, not mounted.
  app.use((req, res, next) => (req.path.startsWith('/v1/') ? v1(req, res, next) : next()));

  app.use(routeNotFound);
  app.use(bodyErrors(deps.bodyLimitBytes));
  app.use(errorHandler(deps.log));
  return app;
}
