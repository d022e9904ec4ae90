import type { Knex } from '../db/knex';
import type { CardAcquirer } from '../adapters/acquirers/card-acquirer';
import type { AuditActor } from '../db/audit-log';
import type { CheckoutService } from './checkout';
import type { SubscriptionService } from './subscriptions/subscriptions';
import { createSignInService } from './sign-in';
import { createMerchantAccountService } from './merchant/merchant-account';
import { createDashboardKeyService } from './dashboard-keys';
import { createThemeService } from './theme';
import { createDeviceService } from './device/device-authorization';
import { createBankExceptionService } from './settlement/bank-exceptions';
import { createFinanceRunService } from './finance/runs';
import { createFinanceBankService } from './finance/bank';
import { createPortalService } from './portal/portal';
import { openPaymentLink } from './payment-links/payment-links';
import { createProductPageService } from './catalog/product-pages';
import type { NotificationChannelService } from './channels/notification-channels-service';
import { DEFAULT_AUTO_DISABLE, type AutoDisableRule } from '../domain/webhook-schedule';
import type { PaymentIntentService } from './payments/payment-intents';
import type { RefundService } from './payments/refunds';
import type { DisputeService } from './disputes/disputes-service';
import type { CustomerService } from './customers/customers';
import type { PaymentMethodService } from './payments/payment-methods';
import type { ProductService } from './catalog/products';
import type { VariantService } from './catalog/variants';
import type { PriceService } from './catalog/prices';
import type { PaymentLinkService } from './payment-links/payment-links';
import type { ClaimsService } from './claims/claims-service';
import type { EventService } from './events/events-service';
import type { WebhookDeliveryService } from './channels/webhook-deliveries-service';
import type { SettlementService } from './settlement/settlement-service';
import { createOverviewService } from './dashboard/overview';
import type { PosAccess } from './pos/access';
import type { PosSetupService } from './pos/pos-setup';
import type { TillService } from './pos/till';
import type { SaleReceipts } from './pos/sale-receipt';
import type { TillCatalog } from './pos/till-catalog';

/**
 * The API's own services, which the merchant dashboard pages call with the signed-in member's
 * merchant and the mode the page shows: the same operations, presenters and rules as `/v1`.
 */
export interface MerchantDataServices {
  paymentIntents: PaymentIntentService;
  refunds: RefundService;
  disputes: DisputeService;
  customers: CustomerService;
  paymentMethods: PaymentMethodService;
  products: ProductService;
  variants: VariantService;
  prices: PriceService;
  paymentLinks: PaymentLinkService;
  claims: ClaimsService;
  events: EventService;
  deliveries: WebhookDeliveryService;
  settlement: SettlementService;
}
import { scanWebsite } from './theme-scan';
import type { Mailer } from '../adapters/mail/mailer';
import type { Logger } from '../stack/logger';
import { createSignUpService } from './accounts/sign-up';
import { createEmailVerificationService } from './accounts/email-verification';
import { createPasswordResetService } from './accounts/password-reset';
import { createTeamService } from './accounts/team';

/** The POS operations the till app (`/pos`) and the dashboard's tills page call, as the API does. */
export interface PosServices {
  access: PosAccess;
  setup: PosSetupService;
  till: TillService;
  receipts: SaleReceipts;
  catalog: TillCatalog;
}

/** Approval of settlement runs, as the settlement service does it. */
export interface RunApprover {
  approveRun(runId: string, actor: AuditActor): Promise<unknown>;
}

export interface PageServiceDeps {
  knex: Knex;
  publicBaseUrl: string;
  acquirer: CardAcquirer;
  checkout: CheckoutService;
  subscriptions: SubscriptionService;
  /** The settlement service; null when the server has no Temporal connection. */
  settlement?: RunApprover | null | undefined;
  /** Notification channels, for the webhooks page (re-enabling a disabled channel). */
  channels: NotificationChannelService;
  /** The rule that disables failing channels, as the worker applies it (the page states it). */
  channelAutoDisable?: AutoDisableRule | undefined;
  /** The merchant dashboard's data (payments, customers, catalog, kröfur, events, settlement). */
  merchantData: MerchantDataServices;
  /** Private ranges the operator lets Skil reach (WEBHOOK_ALLOW_PRIVATE_RANGES): also the theme scan's. */
  allowPrivateRanges?: readonly string[] | undefined;
  /** The service's mail (verification, password reset, invitations; decision 0114). */
  mailer: Mailer;
  /** The point of sale (issue 19): the till app and the dashboard's pairing page. */
  pos: PosServices;
  log?: Logger | undefined;
}

/**
 * The services the pages call (checkout, portal, dashboard, device page), built once from the
 * composition root's parts, so the pages hold services and never a database handle.
 */
export function createPageServices(deps: PageServiceDeps) {
  const accountDeps = {
    knex: deps.knex,
    mailer: deps.mailer,
    publicBaseUrl: deps.publicBaseUrl,
    log: deps.log,
  };
  return {
    signUp: createSignUpService(accountDeps),
    emailVerification: createEmailVerificationService(accountDeps),
    passwordReset: createPasswordResetService(accountDeps),
    team: createTeamService(accountDeps),
    checkout: deps.checkout,
    paymentLinks: { open: (id: string) => openPaymentLink(deps.knex, deps.checkout, id) },
    productPages: createProductPageService({
      knex: deps.knex,
      checkout: deps.checkout,
      access: deps.pos.access,
    }),
    portal: createPortalService({
      knex: deps.knex,
      acquirer: deps.acquirer,
      subscriptions: deps.subscriptions,
    }),
    themes: createThemeService(deps.knex),
    scanWebsite: (address: string) =>
      scanWebsite(address, { allowPrivateRanges: deps.allowPrivateRanges ?? [] }),
    signIn: createSignInService(deps.knex),
    accounts: createMerchantAccountService(deps.knex),
    keys: createDashboardKeyService(deps.knex),
    device: createDeviceService(deps.knex, { publicBaseUrl: deps.publicBaseUrl }),
    financeRuns: createFinanceRunService({ knex: deps.knex }),
    financeBank: createFinanceBankService({ knex: deps.knex }),
    bankExceptions: createBankExceptionService({ knex: deps.knex }),
    settlement: deps.settlement ?? null,
    channels: deps.channels,
    channelAutoDisable: deps.channelAutoDisable ?? DEFAULT_AUTO_DISABLE,
    subscriptions: deps.subscriptions,
    overview: createOverviewService({ knex: deps.knex }),
    data: deps.merchantData,
    pos: deps.pos,
  };
}

export type PageServices = ReturnType<typeof createPageServices>;
