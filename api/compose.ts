import { Client, type Connection } from '@temporalio/client';
import type { Knex } from '../db/knex';
import { createPosRepositories } from '../db/pos-repositories';
import { createProductRepository } from '../db/products';
import { createVariantRepository } from '../db/product-variants';
import { createPriceRepository } from '../db/prices';
import { createSecretBox } from '../domain/secret-box';
import { DEFAULT_AUTO_DISABLE, type AutoDisableRule } from '../domain/webhook-schedule';
import type { Logger } from '../stack/logger';
import { DEFAULT_TASK_QUEUE } from '../workflows/contract';
import type { WebhookDispatcher } from '../engine/webhook-dispatch';
import { createClaimBatchStarter } from '../engine/claim-batch-starter';
import { createClaimSyncStarter } from '../engine/claim-sync-starter';
import { requestIdClientInterceptor } from '../engine/request-id-interceptor';
import { createSubscriptionEngine } from '../engine/subscription-engine';
import type { ConfiguredAcquirer } from '../adapters/acquirers/http-card-acquirer';
import type { ClaimsApi } from '../adapters/banks/claims-api';
import type { TestBankPayer } from '../adapters/banks/test-bank-payer';
import type { CarrierConnections } from '../adapters/carriers/carriers';
import { unconfiguredMailer, type Mailer } from '../adapters/mail/mailer';
import { createHttpPosTerminal, type PosTerminal } from '../adapters/terminal/pos-terminal';
import { createAccessService } from '../services/access';
import type { ApiKeyCache } from '../services/api-key-cache';
import { createIdempotencyService } from '../services/idempotency';
import { createRateLimiter } from '../services/rate-limits';
import { createReadinessCheck } from '../services/system/readiness';
import { createCheckoutService } from '../services/checkout';
import { createPaymentService } from '../services/payments/card-payments';
import { createPaymentIntentService } from '../services/payments/payment-intents';
import { createRefundService } from '../services/payments/refunds';
import { createPaymentMethodService } from '../services/payments/payment-methods';
import { createPaymentLinkService, openPaymentLink } from '../services/payment-links/payment-links';
import { createBillingPortalService } from '../services/billing-portal/billing-portal-sessions';
import { createSubscriptionService } from '../services/subscriptions/subscriptions';
import { createProductService } from '../services/catalog/products';
import { createVariantService } from '../services/catalog/variants';
import { createPriceService } from '../services/catalog/prices';
import { createProductPageService } from '../services/catalog/product-pages';
import { createCustomerService } from '../services/customers/customers';
import { createCouponService } from '../services/coupons/coupons';
import { createPromotionCodeService } from '../services/coupons/promotion-codes';
import { createTestClockService } from '../services/test-clocks/test-clocks';
import { createEventService } from '../services/events/events-service';
import { createNotificationChannelService } from '../services/channels/notification-channels-service';
import { createWebhookDeliveryService } from '../services/channels/webhook-deliveries-service';
import { createMerchantAccountService } from '../services/merchant/merchant-account';
import { createPayoutAccountGuard } from '../services/merchant/payout-account-guard';
import { createMerchantService } from '../services/merchant/merchant-service';
import { createRegistryLookup, type CompanyRegistries } from '../services/merchant/registry-lookup';
import { createMerchantReviewService } from '../services/operator/merchant-review';
import { createThemeService } from '../services/theme';
import { scanWebsite } from '../services/theme-scan';
import { createDeviceService } from '../services/device/device-authorization';
import { createSignInService, SIGN_IN_POLICY } from '../services/sign-in';
import { createSecondFactorService } from '../services/second-factor';
import { createDashboardKeyService } from '../services/dashboard-keys';
import { createSignUpService } from '../services/accounts/sign-up';
import { createEmailVerificationService } from '../services/accounts/email-verification';
import { createPasswordResetService } from '../services/accounts/password-reset';
import { createTeamService } from '../services/accounts/team';
import { createPortalService } from '../services/portal/portal';
import { createOverviewService } from '../services/dashboard/overview';
import { createHomeFiguresService } from '../services/dashboard/home-figures';
import { createDashboardSearchService } from '../services/dashboard/search';
import { createPaymentListService } from '../services/dashboard/payment-list';
import { createFinanceRunService } from '../services/finance/runs';
import { createFinanceBankService } from '../services/finance/bank';
import { createBankExceptionService } from '../services/settlement/bank-exceptions';
import { createSettlementService } from '../services/settlement/settlement-service';
import { createClaimsService } from '../services/claims/claims-service';
import { createRateTable } from '../services/collection/rate-table';
import { createCollectionPolicies } from '../services/collection/collection-policy';
import { createCollectionService } from '../services/collection/collection-service';
import { createClaimTestPayments } from '../services/claims/test-payments';
import { createInvoiceService } from '../services/invoices/invoices-service';
import { createVatReportService } from '../services/books/vat-report';
import { createJournalService } from '../services/books/journal';
import { sendReceipt } from '../services/invoices/receipt-mail';
import { createDisputeService } from '../services/disputes/disputes-service';
import { createDisputeNotifications } from '../services/disputes/dispute-notifications';
import { createPosAccess } from '../services/pos/access';
import { createPosSetupService } from '../services/pos/pos-setup';
import { createTillService } from '../services/pos/till';
import { createSaleReceipts } from '../services/pos/sale-receipt';
import { createTillCatalog } from '../services/pos/till-catalog';
import { createCarrierService } from '../services/delivery/carriers';
import { createDeliveryService } from '../services/delivery/deliveries';
import { createPlatformConnectionService } from '../services/platforms/platform-connections';
import { createInboundWebhooks } from '../services/platforms/inbound-webhooks';
import { createAgentSafety } from '../services/mcp/agent-safety';
import { rolledBack } from '../services/dry-run';
import type { WriteServices } from './mcp/services';
import type { RateLimits } from './middleware/rate-limit';
import { createKeyGuessGuard } from '../services/key-guessing';
import { createAuditLogService } from '../services/audit/audit-log-service';
import type { PageServices } from '../web/page-services';

/** What the API process's services are built from: its entry (`api/main.ts`) or a test stack. */
export interface ServiceDeps {
  knex: Knex;
  log: Logger;
  temporal: Connection | null;
  dispatcher: WebhookDispatcher;
  publicBaseUrl: string;
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
  /** CIDR ranges notification channels may reach although private (decision 0111); default none. */
  webhookAllowPrivateRanges?: readonly string[];
  /** Whether test channels may reach loopback (WEBHOOK_ALLOW_LOOPBACK; decision 0225); default no. */
  webhookAllowLoopback?: boolean;
  /** The rule by which the worker disables failing channels, which the dashboard states (decision 0112). */
  webhookAutoDisable?: AutoDisableRule;
  /** Rate limits per API key and per client address (decision 0110); unset: none, and no counters. */
  rateLimits?: RateLimits;
  /** Looked-up API keys kept in memory while their changes are heard (decision 0186); unset: none kept. */
  apiKeyCache?: ApiKeyCache;
  /** The device flow's poll interval in seconds (DEVICE_POLL_INTERVAL_SECONDS); default 5. */
  devicePollIntervalSeconds?: number;
  /** The client of the POS terminal protocol (decision 0131); default over HTTP. */
  posTerminal?: PosTerminal;
  /** Pickup-point carriers per environment (the simulated ones in test mode); unset: none. */
  carriers?: CarrierConnections;
  /** The company registry per environment (decision 0166); unset: the test fixture, none live. */
  registries?: CompanyRegistries;
}

/**
 * The API process's one composition root (decision 0197): every service its routes, pages and MCP
 * tools call is built here, once, and `api/app.ts` only mounts them. The copies of a service bound
 * to one transaction (an inbound webhook's order, an MCP dry run) are built here too, beside the
 * shared instance and with the same settings.
 */
export function composeServices(deps: ServiceDeps) {
  const { knex, log, dispatcher, publicBaseUrl } = deps;
  const acquirer = deps.acquirer.client;
  const secrets = createSecretBox(deps.secretsKey);
  const mailer = deps.mailer;
  const taskQueue = deps.taskQueue ?? DEFAULT_TASK_QUEUE;
  const allowPrivateRanges = deps.webhookAllowPrivateRanges ?? [];

  const temporalClient = deps.temporal
    ? new Client({
        connection: deps.temporal,
        namespace: deps.temporalNamespace ?? 'default',
        // Workflows started or signalled for a request carry its id (decision 0178).
        interceptors: { workflow: [requestIdClientInterceptor()] },
      })
    : null;
  const subscriptionEngine = temporalClient
    ? createSubscriptionEngine({ client: temporalClient, knex, taskQueue })
    : null;
  // A krafa chosen at checkout is issued by a claim batch started at once (decision 0063).
  const issueClaims = temporalClient
    ? createClaimBatchStarter({ client: temporalClient, taskQueue, log })
    : undefined;

  const carriers = createCarrierService({
    knex,
    carriers: deps.carriers ?? { test: {}, live: {}, simulatorUrl: null },
  });
  const deliveries = createDeliveryService({
    knex,
    carriers,
    dispatcher,
    simulatorUrl: deps.carriers?.simulatorUrl ?? null,
  });
  const delivery = { carriers, deliveries, log };

  const invoices = createInvoiceService({ knex });
  const vatReport = createVatReportService({ knex });
  const journal = createJournalService({ knex });
  const payments = createPaymentService({ knex, acquirer });
  const checkout = createCheckoutService({
    knex,
    payments,
    dispatcher,
    publicBaseUrl,
    engine: subscriptionEngine,
    issueClaims,
    // The buyer's receipt with the invoice (decision 0141); a mail failure is logged, the payment stands.
    afterPaid: mailer
      ? async (paymentIntentId) => {
          await sendReceipt({ knex, mailer }, paymentIntentId).catch((err: unknown) => {
            log.warn({ err, paymentIntentId }, 'receipt email not sent');
          });
        }
      : undefined,
    delivery,
  });
  /**
   * Checkout on a caller's transaction (an inbound order, a dry run), waking channels through
   * `trxDispatcher`. These copies never had `issueClaims` or `afterPaid`: they start no claim batch
   * and send no receipt.
   */
  const checkoutOn = (trx: Knex, trxDispatcher: WebhookDispatcher, withDelivery: boolean) =>
    createCheckoutService({
      knex: trx,
      payments: createPaymentService({ knex: trx, acquirer }),
      dispatcher: trxDispatcher,
      publicBaseUrl,
      engine: subscriptionEngine,
      ...(withDelivery && { delivery }),
    });

  const claimsOn = (db: Knex) =>
    createClaimsService({
      knex: db,
      claimsApi: deps.claimsApi,
      liveClaimsApi: deps.liveClaimsApi,
      engine: subscriptionEngine,
      wakeChannels: (ids) => dispatcher.wake(ids),
    });
  const claims = claimsOn(knex);
  const refundsOn = (db: Knex, to: WebhookDispatcher) =>
    createRefundService({ knex: db, acquirer, dispatcher: to });
  const refunds = refundsOn(knex, dispatcher);
  const paymentIntents = createPaymentIntentService({ knex, payments, dispatcher, publicBaseUrl });
  const paymentMethods = createPaymentMethodService({ knex, payments });
  const disputes = createDisputeService({ knex, acquirer, dispatcher });
  const subscriptions = createSubscriptionService({
    knex,
    engine: subscriptionEngine,
    wakeChannels: (ids) => dispatcher.wake(ids),
  });
  const settlement = createSettlementService({ knex, client: temporalClient, taskQueue });
  const customers = createCustomerService({ knex });
  const products = createProductService({ knex });
  const variants = createVariantService({ knex, products });
  const prices = createPriceService({ knex });
  const paymentLinks = createPaymentLinkService({ knex, checkout, publicBaseUrl });
  const events = createEventService(knex);
  const channelDeps = {
    knex,
    log,
    dispatcher,
    secrets,
    allowPrivateRanges,
    allowLoopback: deps.webhookAllowLoopback ?? false,
  };
  const channels = createNotificationChannelService(channelDeps);
  const webhookDeliveries = createWebhookDeliveryService(channelDeps);
  // A changed payout account is recorded, its owners emailed and its payouts held (decision 0228).
  const payoutGuard = createPayoutAccountGuard({
    knex,
    mailer: mailer ?? unconfiguredMailer(),
    publicBaseUrl,
    log,
    wakeHeldRuns: (merchantId) => settlement.wakeApprovedRuns(merchantId),
  });
  const accounts = createMerchantAccountService(knex, { payoutGuard });
  const themes = createThemeService(knex);
  // One device flow for the token endpoints and the verification page; only `authorize`, which the
  // page never calls, reads the poll interval.
  const device = createDeviceService(knex, {
    publicBaseUrl,
    ...(deps.devicePollIntervalSeconds !== undefined && {
      pollIntervalSeconds: deps.devicePollIntervalSeconds,
    }),
  });

  const posRepo = createPosRepositories(knex);
  const posCatalog = {
    products: createProductRepository(knex),
    variants: createVariantRepository(knex),
    prices: createPriceRepository(knex),
  };
  const posAccess = createPosAccess({ knex, pos: posRepo });
  const posTerminal = deps.posTerminal ?? createHttpPosTerminal();
  const posSetup = createPosSetupService({
    knex,
    pos: posRepo,
    access: posAccess,
    terminal: posTerminal,
    pinKey: deps.secretsKey,
  });
  const till = createTillService({
    knex,
    pos: posRepo,
    catalog: posCatalog,
    access: posAccess,
    terminal: posTerminal,
    payments,
    refunds,
    dispatcher,
  });
  const pos = {
    access: posAccess,
    setup: posSetup,
    till,
    receipts: createSaleReceipts({ knex, till, mailer }),
    catalog: createTillCatalog({ catalog: posCatalog, access: posAccess }),
  };

  const auditLog = createAuditLogService({ knex });
  // Overdue kröfur (decisions 0244–0246): the rate table, the policies and caps, a krafa's collection.
  const defaultInterestRates = createRateTable({ knex });
  const collectionPolicies = createCollectionPolicies({ knex });
  const collection = createCollectionService({ knex, rates: defaultInterestRates });
  const accountDeps = { knex, mailer: mailer ?? unconfiguredMailer(), publicBaseUrl, log };
  const secondFactor = createSecondFactorService({ knex, secrets, throttle: SIGN_IN_POLICY, publicBaseUrl });
  const pages: PageServices = {
    signUp: createSignUpService(accountDeps),
    emailVerification: createEmailVerificationService(accountDeps),
    passwordReset: createPasswordResetService(accountDeps),
    team: createTeamService(accountDeps),
    checkout,
    paymentLinks: { open: (id: string) => openPaymentLink(knex, checkout, id) },
    productPages: createProductPageService({ knex, checkout, access: posAccess }),
    portal: createPortalService({ knex, acquirer, subscriptions }),
    themes,
    scanWebsite: (address: string) => scanWebsite(address, { allowPrivateRanges }),
    signIn: createSignInService(knex, secondFactor),
    secondFactor,
    auditLog,
    payoutGuard,
    accounts,
    keys: createDashboardKeyService(knex),
    device,
    financeRuns: createFinanceRunService({ knex }),
    financeBank: createFinanceBankService({ knex }),
    bankExceptions: createBankExceptionService({ knex }),
    settlement,
    channels,
    channelAutoDisable: deps.webhookAutoDisable ?? DEFAULT_AUTO_DISABLE,
    subscriptions,
    collection,
    overview: createOverviewService({ knex }),
    homeFigures: createHomeFiguresService({ knex }),
    search: createDashboardSearchService({ knex }),
    paymentList: createPaymentListService({ knex }),
    vatReport,
    journal,
    data: {
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
      deliveries: webhookDeliveries,
      settlement,
      invoices,
    },
    pos,
  };

  const noWebhooks: WebhookDispatcher = { wake: () => Promise.resolve() };
  /**
   * Write services on a transaction that is rolled back: the dry runs and previews of the MCP write
   * tools. Their subscriptions tell no workflow and wake no channel: nothing outside the
   * transaction hears of what it undoes (decision 0202).
   */
  const writeServicesOn = (trx: Knex): WriteServices => {
    const dryCheckout = checkoutOn(trx, noWebhooks, false);
    return {
      checkout: dryCheckout,
      paymentLinks: createPaymentLinkService({ knex: trx, checkout: dryCheckout, publicBaseUrl }),
      customers: createCustomerService({ knex: trx }),
      products: createProductService({ knex: trx }),
      prices: createPriceService({ knex: trx }),
      subscriptions: createSubscriptionService({
        knex: trx,
        engine: { notify: () => Promise.resolve() },
        wakeChannels: () => Promise.resolve(),
      }),
      claims: claimsOn(trx),
    };
  };

  return {
    readiness: createReadinessCheck({ knex, temporal: deps.temporal }),
    auditLog,
    /** The counters behind the rate limits (decision 0110); null when requests are not limited. */
    rateLimiter: deps.rateLimits
      ? createRateLimiter({
          knex,
          onPurgeError: (err) => log.warn({ err }, 'could not purge rate-limit counters'),
        })
      : null,
    /** Slows API-key guessing per client address (decision 0226); null when that limit is off. */
    keyGuessGuard: deps.rateLimits?.apiKeyFailures
      ? createKeyGuessGuard({
          knex,
          limit: deps.rateLimits.apiKeyFailures,
          onBackgroundError: (err) => log.warn({ err }, 'could not record an API key sighting'),
        })
      : null,
    // API keys and operator tokens: the operator routes check the latter themselves.
    access: createAccessService({
      knex,
      onTouchError: (err) => log.warn({ err }, 'could not record API key use'),
      ...(deps.apiKeyCache && { keyCache: deps.apiKeyCache }),
    }),
    idempotency: createIdempotencyService({ knex, secrets }),
    device,
    settlement,
    merchantReview: createMerchantReviewService(knex, accounts),
    merchants: createMerchantService(accounts),
    themes,
    lookUpCompany: createRegistryLookup(deps.registries),
    disputeNotifications: createDisputeNotifications({ knex, acquirer, dispatcher }),
    // Inbound platform webhooks (spec §4.7) create each order's session in one transaction.
    inboundWebhooks: createInboundWebhooks({
      knex,
      secrets,
      dispatcher,
      carriers,
      deliveries,
      servicesOn: (trx, trxDispatcher) => ({
        checkout: checkoutOn(trx, trxDispatcher, true),
        claims: claimsOn(trx),
        refunds: refundsOn(trx, trxDispatcher),
      }),
    }),
    events,
    channels,
    webhookDeliveries,
    products,
    variants,
    prices,
    customers,
    coupons: createCouponService({ knex }),
    promotionCodes: createPromotionCodeService({ knex }),
    checkout,
    paymentIntents,
    refunds,
    invoices,
    vatReport,
    journal,
    disputes,
    pos,
    paymentMethods,
    subscriptions,
    testClocks: createTestClockService({ knex, engine: subscriptionEngine }),
    billingPortal: createBillingPortalService({ knex, publicBaseUrl }),
    claims,
    defaultInterestRates,
    collectionPolicies,
    collection,
    claimTestPayments: createClaimTestPayments({
      knex,
      bank: deps.testBank,
      issueClaims,
      syncClaimPayments: temporalClient
        ? createClaimSyncStarter({ client: temporalClient, taskQueue })
        : undefined,
    }),
    paymentLinks,
    carriers,
    deliveries,
    platformConnections: createPlatformConnectionService({ knex, secrets, publicBaseUrl }),
    pages,
    /** Runs `work` on write services whose every database write is rolled back (decision 0121). */
    dryRun: <T>(work: (services: WriteServices) => Promise<T>) =>
      rolledBack(knex, (trx) => work(writeServicesOn(trx))),
    agentSafety: createAgentSafety({ knex }),
  };
}

export type ApiServices = ReturnType<typeof composeServices>;
