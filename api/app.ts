import express, { type Express } from 'express';
import type { Connection } from '@temporalio/client';
import type { Knex } from '../db/knex';
import type { Logger } from '../stack/logger';
import type { WebhookDispatcher } from '../engine/webhook-dispatch';
import { createClaimBatchStarter } from '../engine/claim-batch-starter';
import { DEFAULT_TASK_QUEUE } from '../workflows/contract';
import { SDK_SCRIPT_DOC, type OperationDoc } from './openapi';
import { checkResponses } from './route';
import type { Metrics } from './metrics';
import { createAccessService } from '../services/access';
import type { ApiKeyCache } from '../services/api-key-cache';
import { createIdempotencyService } from '../services/idempotency';
import { requestContext } from './middleware/request-context';
import { requestIdClientInterceptor } from '../engine/request-id-interceptor';
import { bodyErrors, bodyParsers, requireObjectBody } from './middleware/body';
import { authenticate } from './middleware/auth';
import { checkInput } from './middleware/input-check';
import { idempotency } from './middleware/idempotency';
import { errorHandler, routeNotFound } from './middleware/errors';
import { systemRouter } from './routes/system';
import { eventsRouter } from './routes/events';
import { notificationChannelsRouter } from './routes/notification-channels';
import { webhookDeliveriesRouter } from './routes/webhook-deliveries';
import { merchantRouter } from './routes/merchant';
import { deviceRouter } from './routes/device';
import { operatorRouter } from './routes/operator';
import { pages } from '../web';
import { productsRouter } from './routes/products';
import { pricesRouter } from './routes/prices';
import { customersRouter } from './routes/customers';
import { couponsRouter } from './routes/coupons';
import { promotionCodesRouter } from './routes/promotion-codes';
import { checkoutSessionsRouter } from './routes/checkout-sessions';
import { paymentIntentsRouter } from './routes/payment-intents';
import { invoicesRouter } from './routes/invoices';
import { createInvoiceService } from '../services/invoices/invoices-service';
import { sendReceipt } from '../services/invoices/receipt-mail';
import { paymentMethodsRouter } from './routes/payment-methods';
import { paymentLinksRouter } from './routes/payment-links';
import { claimsRouter } from './routes/claims';
import { createClaimsService } from '../services/claims/claims-service';
import type { ClaimsApi } from '../adapters/banks/claims-api';
import { createCheckoutService } from '../services/checkout';
import { createPaymentService } from '../services/payments/card-payments';
import { createPaymentIntentService } from '../services/payments/payment-intents';
import { createRefundService } from '../services/payments/refunds';
import { createPaymentMethodService } from '../services/payments/payment-methods';
import { createPaymentLinkService } from '../services/payment-links/payment-links';
import { createBillingPortalService } from '../services/billing-portal/billing-portal-sessions';
import type { ConfiguredAcquirer } from '../adapters/acquirers/http-card-acquirer';
import { Client } from '@temporalio/client';
import { createSubscriptionEngine } from '../engine/subscription-engine';
import { createSubscriptionService } from '../services/subscriptions/subscriptions';
import { subscriptionsRouter } from './routes/subscriptions';
import { testClocksRouter } from './routes/test-clocks';
import { billingPortalRouter } from './routes/billing-portal';
import { settlementOperatorRouter, settlementRunsRouter } from './routes/settlement-runs';
import { createProductService } from '../services/catalog/products';
import { createVariantService } from '../services/catalog/variants';
import { createPriceService } from '../services/catalog/prices';
import { createCustomerService } from '../services/customers/customers';
import { createCouponService } from '../services/coupons/coupons';
import { createPromotionCodeService } from '../services/coupons/promotion-codes';
import { createTestClockService } from '../services/test-clocks/test-clocks';
import { createReadinessCheck } from '../services/system/readiness';
import { createEventService } from '../services/events/events-service';
import { createNotificationChannelService } from '../services/channels/notification-channels-service';
import { createWebhookDeliveryService } from '../services/channels/webhook-deliveries-service';
import { createMerchantService } from '../services/merchant/merchant-service';
import { createRegistryLookup, type CompanyRegistries } from '../services/merchant/registry-lookup';
import { createThemeService } from '../services/theme';
import { createDeviceService } from '../services/device/device-authorization';
import { createMerchantReviewService } from '../services/operator/merchant-review';
import { createSettlementService } from '../services/settlement/settlement-service';
import { createClaimTestPayments } from '../services/claims/test-payments';
import { createClaimSyncStarter } from '../engine/claim-sync-starter';
import type { TestBankPayer } from '../adapters/banks/test-bank-payer';
import { createSecretBox } from '../domain/secret-box';
import { createRateLimiter } from '../services/rate-limits';
import { limitPerAddress, limitPerApiKey, type RateLimits } from './middleware/rate-limit';
import type { AutoDisableRule } from '../domain/webhook-schedule';
import { createAgentSafety } from '../services/mcp/agent-safety';
import { rolledBack } from '../services/dry-run';
import { createMcpTools, mcpRouter } from './mcp/server';
import type { WriteServices } from './mcp/services';
import { createPosRepositories } from '../db/pos-repositories';
import { createProductRepository } from '../db/products';
import { createVariantRepository } from '../db/product-variants';
import { createPriceRepository } from '../db/prices';
import { createPosAccess } from '../services/pos/access';
import { createPosSetupService } from '../services/pos/pos-setup';
import { createTillService } from '../services/pos/till';
import { createSaleReceipts } from '../services/pos/sale-receipt';
import { createTillCatalog } from '../services/pos/till-catalog';
import { createHttpPosTerminal, type PosTerminal } from '../adapters/terminal/pos-terminal';
import { posPublicRouter, posRouter } from './routes/pos';
import type { CarrierConnections } from '../adapters/carriers/carriers';
import { createCarrierService } from '../services/delivery/carriers';
import { createDeliveryService } from '../services/delivery/deliveries';
import { deliveryRouter } from './routes/delivery';
import { platformConnectionsRouter } from './routes/platform-connections';
import { platformWebhooksRouter } from './routes/platform-webhooks';
import { acquirerNotificationsRouter, disputesRouter } from './routes/disputes';
import { createDisputeService } from '../services/disputes/disputes-service';
import { createDisputeNotifications } from '../services/disputes/dispute-notifications';
import { createPlatformConnectionService } from '../services/platforms/platform-connections';
import { createInboundWebhooks } from '../services/platforms/inbound-webhooks';
import { unconfiguredMailer, type Mailer } from '../adapters/mail/mailer';

export interface AppDeps {
  knex: Knex;
  log: Logger;
  metrics: Metrics;
  temporal: Connection | null;
  dispatcher: WebhookDispatcher;
  publicBaseUrl: string;
  bodyLimitBytes: number;
  /** Where the service's mail goes (SMTP_URL; decision 0114); unset: every send is refused. */
  mailer?: Mailer;
  /** SECRETS_ENCRYPTION_KEY: seals signing secrets and idempotent replays at rest (decision 0112). */
  secretsKey: string;
  /**
   * The card acquirer, and the origin of its 3-D Secure pages. In the test environment it is the
   * simulated acquirer, one service shared by every API process and the worker (decision 0102).
   */
  acquirer: ConfiguredAcquirer;
  /** Task queue and namespace of the workflows the API starts; the defaults are the config's defaults. */
  taskQueue?: string;
  temporalNamespace?: string;
  /** The test environment's claims bank (cancel and amend of issued claims); unset: those answer 503. */
  claimsApi?: ClaimsApi | undefined;
  /** The live environment's claims bank (decision 0177); unset: live kröfur wait at pending. */
  liveClaimsApi?: ClaimsApi | undefined;
  /** The test bank's payer side, for `/v1/test_helpers/claims/{id}/pay`; unset: that answers 503. */
  testBank?: TestBankPayer | undefined;
  /** Hold every declared route's response to its schema (`CHECK_RESPONSES`; on in the test stack). */
  checkResponses?: boolean;
  /** CIDR ranges notification channels may reach although private (decision 0111); default none. */
  webhookAllowPrivateRanges?: readonly string[];
  /** The rule by which the worker disables failing channels, which the dashboard states (decision 0112). */
  webhookAutoDisable?: AutoDisableRule;
  /** Rate limits per API key and per client address (decision 0110); unset: none. */
  rateLimits?: RateLimits;
  /** Looked-up API keys kept in memory while their changes are heard (decision 0186); unset: none kept. */
  apiKeyCache?: ApiKeyCache;
  /** Express's `trust proxy`: whose X-Forwarded-For names the client (TRUST_PROXY); default none. */
  trustProxy?: false | number | string[];
  /** The device flow's poll interval in seconds (DEVICE_POLL_INTERVAL_SECONDS); default 5. */
  devicePollIntervalSeconds?: number;
  /** The client of the POS terminal protocol (decision 0131); default over HTTP. */
  posTerminal?: PosTerminal;
  /** Pickup-point carriers per environment (the simulated ones in test mode); unset: none. */
  carriers?: CarrierConnections;
  /** The company registry per environment (decision 0166); unset: the test fixture, none live. */
  registries?: CompanyRegistries;
}

/** The HTTP API: thin routers over repositories and workflow starts (architecture, "api"). */
export function createApp(deps: AppDeps): Express {
  const secrets = createSecretBox(deps.secretsKey);
  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', 'extended');
  app.set('trust proxy', deps.trustProxy ?? false);
  const limiter = deps.rateLimits
    ? {
        limits: deps.rateLimits,
        shared: createRateLimiter({
          knex: deps.knex,
          onPurgeError: (err) => deps.log.warn({ err }, 'could not purge rate-limit counters'),
        }),
      }
    : null;
  const docs: OperationDoc[] = [];

  app.use(requestContext(deps.log, deps.metrics));
  if (deps.checkResponses) app.use(checkResponses());
  app.use(
    systemRouter(
      {
        checkReadiness: createReadinessCheck({ knex: deps.knex, temporal: deps.temporal }),
        metrics: deps.metrics,
        publicBaseUrl: deps.publicBaseUrl,
      },
      docs,
    ),
  );

  const { acquirer } = deps;
  const payments = createPaymentService({ knex: deps.knex, acquirer: acquirer.client });
  const taskQueue = deps.taskQueue ?? DEFAULT_TASK_QUEUE;
  const temporalClient = deps.temporal
    ? new Client({
        connection: deps.temporal,
        namespace: deps.temporalNamespace ?? 'default',
        // Workflows started or signalled for a request carry its id (decision 0178).
        interceptors: { workflow: [requestIdClientInterceptor()] },
      })
    : null;
  const subscriptionEngine = temporalClient
    ? createSubscriptionEngine({ client: temporalClient, knex: deps.knex, taskQueue })
    : null;
  // A krafa chosen at checkout is issued by a claim batch started at once (decision 0063).
  const issueClaims = temporalClient
    ? createClaimBatchStarter({ client: temporalClient, taskQueue, log: deps.log })
    : undefined;
  const carrierService = createCarrierService({
    knex: deps.knex,
    carriers: deps.carriers ?? { test: {}, live: {}, simulatorUrl: null },
  });
  const deliveryService = createDeliveryService({
    knex: deps.knex,
    carriers: carrierService,
    dispatcher: deps.dispatcher,
    simulatorUrl: deps.carriers?.simulatorUrl ?? null,
  });
  const checkout = createCheckoutService({
    knex: deps.knex,
    acquirer: acquirer.client,
    dispatcher: deps.dispatcher,
    publicBaseUrl: deps.publicBaseUrl,
    engine: subscriptionEngine,
    issueClaims,
    // The buyer's receipt with the invoice (decision 0141); a mail failure is logged, the payment stands.
    afterPaid: deps.mailer
      ? async (paymentIntentId) => {
          await sendReceipt({ knex: deps.knex, mailer: deps.mailer! }, paymentIntentId).catch(
            (err: unknown) => {
              deps.log.warn({ err, paymentIntentId }, 'receipt email not sent');
            },
          );
        }
      : undefined,
    delivery: { carriers: carrierService, deliveries: deliveryService, log: deps.log },
  });
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
  publicV1.use(
    deviceRouter(
      {
        device: createDeviceService(deps.knex, {
          publicBaseUrl: deps.publicBaseUrl,
          ...(deps.devicePollIntervalSeconds !== undefined && {
            pollIntervalSeconds: deps.devicePollIntervalSeconds,
          }),
        }),
      },
      docs,
    ),
  );
  // Settlement's operator routes (approve, settlement days) sit before the general operator router.
  const settlement = createSettlementService({ knex: deps.knex, client: temporalClient, taskQueue });
  // API keys and operator tokens: the operator routes check the latter themselves.
  const access = createAccessService({
    knex: deps.knex,
    onTouchError: (err) => deps.log.warn({ err }, 'could not record API key use'),
    ...(deps.apiKeyCache && { keyCache: deps.apiKeyCache }),
  });
  const posRepo = createPosRepositories(deps.knex);
  const posCatalog = {
    products: createProductRepository(deps.knex),
    variants: createVariantRepository(deps.knex),
    prices: createPriceRepository(deps.knex),
  };
  const posAccess = createPosAccess({ knex: deps.knex, pos: posRepo });
  const posTerminal = deps.posTerminal ?? createHttpPosTerminal();
  const posSetup = createPosSetupService({
    knex: deps.knex,
    pos: posRepo,
    access: posAccess,
    terminal: posTerminal,
    pinKey: deps.secretsKey,
  });
  publicV1.use(posPublicRouter({ setup: posSetup }, docs));
  publicV1.use(settlementOperatorRouter({ access, settlement }));
  publicV1.use(operatorRouter({ access, merchants: createMerchantReviewService(deps.knex) }));
  app.use((req, res, next) =>
    /^\/v1\/(device|operator)\/|^\/v1\/pos\/(devices|terminal_announcements)$/.test(req.path)
      ? publicV1(req, res, next)
      : next(),
  );
  // The card acquirer's dispute notifications (decision 0155): no key; its signature over the raw body.
  app.use(
    acquirerNotificationsRouter({
      bodyLimitBytes: deps.bodyLimitBytes,
      notifications: createDisputeNotifications({
        knex: deps.knex,
        acquirer: acquirer.client,
        dispatcher: deps.dispatcher,
      }),
    }),
  );
  // Inbound platform webhooks (spec §4.7): no key; the platform's signature over the raw body.
  app.use(
    platformWebhooksRouter(
      {
        bodyLimitBytes: deps.bodyLimitBytes,
        inbound: createInboundWebhooks({
          knex: deps.knex,
          secrets,
          dispatcher: deps.dispatcher,
          carriers: carrierService,
          deliveries: deliveryService,
          servicesOn: (trx, dispatcher) => ({
            checkout: createCheckoutService({
              knex: trx,
              acquirer: acquirer.client,
              dispatcher,
              publicBaseUrl: deps.publicBaseUrl,
              engine: subscriptionEngine,
              delivery: { carriers: carrierService, deliveries: deliveryService, log: deps.log },
            }),
            claims: createClaimsService({
              knex: trx,
              claimsApi: deps.claimsApi,
              liveClaimsApi: deps.liveClaimsApi,
              engine: subscriptionEngine,
            }),
            refunds: createRefundService({ knex: trx, acquirer: acquirer.client, dispatcher }),
          }),
        }),
      },
      docs,
    ),
  );

  const v1 = express.Router();
  v1.use(authenticate(access, posAccess));
  if (limiter) v1.use(limitPerApiKey(limiter.shared, limiter.limits, deps.log));
  v1.use(...bodyParsers(deps.bodyLimitBytes), bodyErrors(deps.bodyLimitBytes), requireObjectBody, checkInput);
  const idempotencyStore = createIdempotencyService({ knex: deps.knex, secrets });
  v1.use(idempotency(idempotencyStore, deps.log));
  const events = createEventService(deps.knex);
  v1.use(eventsRouter({ events }, docs));
  const channelDeps = {
    knex: deps.knex,
    log: deps.log,
    dispatcher: deps.dispatcher,
    secrets,
    allowPrivateRanges: deps.webhookAllowPrivateRanges ?? [],
  };
  const channels = createNotificationChannelService(channelDeps);
  v1.use(notificationChannelsRouter({ channels }, docs));
  const deliveries = createWebhookDeliveryService(channelDeps);
  v1.use(webhookDeliveriesRouter({ deliveries }, docs));
  v1.use(
    merchantRouter(
      {
        merchants: createMerchantService(deps.knex),
        themes: createThemeService(deps.knex),
        lookUpCompany: createRegistryLookup(deps.registries),
      },
      docs,
    ),
  );
  const products = createProductService({ knex: deps.knex });
  const variants = createVariantService({ knex: deps.knex, products });
  v1.use(productsRouter({ products, variants }, docs));
  const prices = createPriceService({ knex: deps.knex });
  v1.use(pricesRouter({ prices }, docs));
  const customers = createCustomerService({ knex: deps.knex });
  v1.use(customersRouter({ customers }, docs));
  v1.use(couponsRouter({ coupons: createCouponService({ knex: deps.knex }) }, docs));
  v1.use(promotionCodesRouter({ promotionCodes: createPromotionCodeService({ knex: deps.knex }) }, docs));
  v1.use(checkoutSessionsRouter({ checkout }, docs));
  const paymentIntents = createPaymentIntentService({
    knex: deps.knex,
    payments,
    dispatcher: deps.dispatcher,
    publicBaseUrl: deps.publicBaseUrl,
  });
  const refunds = createRefundService({
    knex: deps.knex,
    acquirer: acquirer.client,
    dispatcher: deps.dispatcher,
  });
  v1.use(paymentIntentsRouter({ paymentIntents, refunds }, docs));
  v1.use(invoicesRouter({ invoices: createInvoiceService({ knex: deps.knex }) }, docs));
  const disputes = createDisputeService({
    knex: deps.knex,
    acquirer: acquirer.client,
    dispatcher: deps.dispatcher,
  });
  v1.use(disputesRouter({ disputes }, docs));
  const till = createTillService({
    knex: deps.knex,
    pos: posRepo,
    catalog: posCatalog,
    access: posAccess,
    terminal: posTerminal,
    payments,
    refunds,
    dispatcher: deps.dispatcher,
  });
  const saleReceipts = createSaleReceipts({ knex: deps.knex, till, mailer: deps.mailer });
  v1.use(posRouter({ setup: posSetup, till, receipts: saleReceipts }, docs));
  const paymentMethods = createPaymentMethodService({ knex: deps.knex, payments });
  v1.use(paymentMethodsRouter({ paymentMethods }, docs));
  const subscriptionService = createSubscriptionService({
    knex: deps.knex,
    engine: subscriptionEngine,
    wakeChannels: (ids) => deps.dispatcher.wake(ids),
  });
  v1.use(subscriptionsRouter({ subscriptions: subscriptionService }, docs));
  v1.use(
    testClocksRouter(
      { testClocks: createTestClockService({ knex: deps.knex, engine: subscriptionEngine }) },
      docs,
    ),
  );
  v1.use(
    billingPortalRouter(
      { billingPortal: createBillingPortalService({ knex: deps.knex, publicBaseUrl: deps.publicBaseUrl }) },
      docs,
    ),
  );
  // The pages (hosted checkout, short URLs, payment links, the browser SDK, the customer portal, the
  // dashboard and the device page) need no API key, so they come before v1's key check.
  docs.push(SDK_SCRIPT_DOC);
  const claims = createClaimsService({
    knex: deps.knex,
    claimsApi: deps.claimsApi,
    liveClaimsApi: deps.liveClaimsApi,
    engine: subscriptionEngine,
  });
  const paymentLinks = createPaymentLinkService({
    knex: deps.knex,
    checkout,
    publicBaseUrl: deps.publicBaseUrl,
  });
  app.use(
    pages({
      knex: deps.knex,
      log: deps.log,
      publicBaseUrl: deps.publicBaseUrl,
      acquirer: acquirer.client,
      acquirerOrigin: acquirer.origin,
      checkout,
      subscriptions: subscriptionService,
      settlement,
      channels,
      channelAutoDisable: deps.webhookAutoDisable,
      merchantData: {
        paymentIntents,
        refunds,
        disputes,
        customers,
        paymentMethods,
        products,
        variants,
        prices,
        paymentLinks,
        claims,
        events,
        deliveries,
        settlement,
      },
      allowPrivateRanges: deps.webhookAllowPrivateRanges ?? [],
      mailer: deps.mailer ?? unconfiguredMailer(),
      pos: {
        access: posAccess,
        setup: posSetup,
        till,
        receipts: saleReceipts,
        catalog: createTillCatalog({ catalog: posCatalog, access: posAccess }),
      },
    }),
  );
  const claimTestPayments = createClaimTestPayments({
    knex: deps.knex,
    bank: deps.testBank,
    issueClaims,
    syncClaimPayments: temporalClient
      ? createClaimSyncStarter({ client: temporalClient, taskQueue })
      : undefined,
  });
  v1.use(
    claimsRouter(
      {
        claims,
        testPayments: claimTestPayments,
      },
      docs,
    ),
  );
  v1.use(settlementRunsRouter({ settlement }, docs));
  v1.use(paymentLinksRouter({ paymentLinks }, docs));
  v1.use(deliveryRouter({ carriers: carrierService, deliveries: deliveryService }, docs));
  v1.use(
    platformConnectionsRouter(
      {
        connections: createPlatformConnectionService({
          knex: deps.knex,
          secrets,
          publicBaseUrl: deps.publicBaseUrl,
        }),
      },
      docs,
    ),
  );

  // The MCP server (decision 0120): the same services, schemas and idempotency store as v1.
  const noWebhooks: WebhookDispatcher = { wake: () => Promise.resolve() };
  /** Write services on a transaction that is rolled back: the dry runs of the create tools. */
  const writeServicesOn = (knex: Knex): WriteServices => {
    const dryCheckout = createCheckoutService({
      knex,
      acquirer: acquirer.client,
      dispatcher: noWebhooks,
      publicBaseUrl: deps.publicBaseUrl,
      engine: subscriptionEngine,
    });
    return {
      checkout: dryCheckout,
      paymentLinks: createPaymentLinkService({
        knex,
        checkout: dryCheckout,
        publicBaseUrl: deps.publicBaseUrl,
      }),
      customers: createCustomerService({ knex }),
    };
  };
  app.use(
    mcpRouter({
      access,
      log: deps.log,
      bodyLimitBytes: deps.bodyLimitBytes,
      limitPerKey: limiter ? limitPerApiKey(limiter.shared, limiter.limits, deps.log) : undefined,
      tools: createMcpTools({
        services: {
          checkout,
          paymentLinks,
          customers,
          products,
          prices,
          paymentIntents,
          refunds,
          events,
          settlement,
        },
        dryRun: (work) => rolledBack(deps.knex, (trx) => work(writeServicesOn(trx))),
        idempotency: idempotencyStore,
        safety: createAgentSafety({ knex: deps.knex }),
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
