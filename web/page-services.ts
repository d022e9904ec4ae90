import type { CollectionService } from '../services/collection/collection-service';
import type { VatReportService } from '../services/books/vat-report';
import type { JournalService } from '../services/books/journal';
import type { AutoDisableRule } from '../domain/webhook-schedule';
import type { CheckoutService } from '../services/checkout';
import type { SubscriptionService } from '../services/subscriptions/subscriptions';
import type { SignInService } from '../services/sign-in';
import type { SecondFactorService } from '../services/second-factor';
import type { MerchantAccountService } from '../services/merchant/merchant-account';
import type { DashboardKeyService } from '../services/dashboard-keys';
import type { ThemeService } from '../services/theme';
import type { DeviceService } from '../services/device/device-authorization';
import type { BankExceptionService } from '../services/settlement/bank-exceptions';
import type { AuditActor, FinanceRunService } from '../services/finance/runs';
import type { FinanceBankService } from '../services/finance/bank';
import type { PortalService } from '../services/portal/portal';
import type { openPaymentLink, PaymentLinkService } from '../services/payment-links/payment-links';
import type { ProductPageService } from '../services/catalog/product-pages';
import type { NotificationChannelService } from '../services/channels/notification-channels-service';
import type { PaymentIntentService } from '../services/payments/payment-intents';
import type { RefundService } from '../services/payments/refunds';
import type { DisputeService } from '../services/disputes/disputes-service';
import type { CustomerService } from '../services/customers/customers';
import type { PaymentMethodService } from '../services/payments/payment-methods';
import type { ProductService } from '../services/catalog/products';
import type { VariantService } from '../services/catalog/variants';
import type { PriceService } from '../services/catalog/prices';
import type { ClaimsService } from '../services/claims/claims-service';
import type { InvoiceService } from '../services/invoices/invoices-service';
import type { EventService } from '../services/events/events-service';
import type { WebhookDeliveryService } from '../services/channels/webhook-deliveries-service';
import type { SettlementService } from '../services/settlement/settlement-service';
import type { OverviewService } from '../services/dashboard/overview';
import type { HomeFiguresService } from '../services/dashboard/home-figures';
import type { DashboardSearchService } from '../services/dashboard/search';
import type { PaymentListService } from '../services/dashboard/payment-list';
import type { PosAccess } from '../services/pos/access';
import type { PosSetupService } from '../services/pos/pos-setup';
import type { TillService } from '../services/pos/till';
import type { SaleReceipts } from '../services/pos/sale-receipt';
import type { TillCatalog } from '../services/pos/till-catalog';
import type { scanWebsite } from '../services/theme-scan';
import type { SignUpService } from '../services/accounts/sign-up';
import type { EmailVerificationService } from '../services/accounts/email-verification';
import type { PasswordResetService } from '../services/accounts/password-reset';
import type { TeamService } from '../services/accounts/team';
import type { AuditLogService } from '../services/audit/audit-log-service';
import type { PayoutAccountGuard } from '../services/merchant/payout-account-guard';

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
  /** Invoices: lists, pages, documents, a payment's invoice and its delivery (decisions 0219, 0233). */
  invoices: InvoiceService;
}

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

/**
 * What the pages call (checkout, portal, dashboard, device page, POS app). The API process's
 * composition root (`api/compose.ts`) builds these with the rest of its services and hands them to
 * `pages()`, so the pages hold services and never a database handle, and share each instance with
 * the routes that make the same operation.
 */
export interface PageServices {
  signUp: SignUpService;
  emailVerification: EmailVerificationService;
  passwordReset: PasswordResetService;
  team: TeamService;
  checkout: CheckoutService;
  paymentLinks: { open: (id: string) => ReturnType<typeof openPaymentLink> };
  productPages: ProductPageService;
  portal: PortalService;
  themes: ThemeService;
  /** The theme scan of a merchant's website, under the operator's private-range allowance. */
  scanWebsite: (address: string) => ReturnType<typeof scanWebsite>;
  signIn: SignInService;
  /** The merchant's audit log (decision 0227): written by every write, read on its page. */
  auditLog: AuditLogService;
  /** Payout account changes: their holds and the owners' confirmation (decision 0228). */
  payoutGuard: PayoutAccountGuard;
  /** Members' second factors and re-authentication (decisions 0220-0222). */
  secondFactor: SecondFactorService;
  accounts: MerchantAccountService;
  keys: DashboardKeyService;
  device: DeviceService;
  financeRuns: FinanceRunService;
  financeBank: FinanceBankService;
  bankExceptions: BankExceptionService;
  /** The settlement service; null when the server has no Temporal connection. */
  settlement: RunApprover | null;
  /** Notification channels, for the webhooks page (re-enabling a disabled channel). */
  channels: NotificationChannelService;
  /** The rule that disables failing channels, as the worker applies it (the page states it). */
  channelAutoDisable: AutoDisableRule;
  subscriptions: SubscriptionService;
  /** Overdue kröfur: the payer page of a krafa and the dashboard's overdue list (decision 0246). */
  collection: CollectionService;
  overview: OverviewService;
  /** The home page's figures for a period against the previous one (decision 0230). */
  homeFigures: HomeFiguresService;
  /** The header's search over payments, customers, subscriptions, kröfur and invoices (decision 0231). */
  search: DashboardSearchService;
  /** The payment list's filters, sorting and streaming CSV export (decision 0232). */
  paymentList: PaymentListService;
  vatReport: VatReportService;
  journal: JournalService;
  /** The merchant dashboard's data (payments, customers, catalog, kröfur, events, settlement). */
  data: MerchantDataServices;
  /** The point of sale: the till app and the dashboard's pairing page. */
  pos: PosServices;
}
