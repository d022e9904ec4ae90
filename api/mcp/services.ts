import type { CheckoutService } from '../../services/checkout';
import type { PaymentLinkService } from '../../services/payment-links/payment-links';
import type { CustomerService } from '../../services/customers/customers';
import type { ProductService } from '../../services/catalog/products';
import type { PriceService } from '../../services/catalog/prices';
import type { SubscriptionService } from '../../services/subscriptions/subscriptions';
import type { ClaimsService } from '../../services/claims/claims-service';
import type { InvoiceService } from '../../services/invoices/invoices-service';
import type { PaymentIntentService } from '../../services/payments/payment-intents';
import type { RefundService } from '../../services/payments/refunds';
import type { EventService } from '../../services/events/events-service';
import type { SettlementService } from '../../services/settlement/settlement-service';
import type { IdempotencyService } from '../../services/idempotency';
import type { AgentSafety } from '../../services/mcp/agent-safety';

/**
 * The services whose writes the write tools make, and can make again in a dry run. A krafa's
 * cancel is not here: it cancels at the bank too, which no rollback undoes (decision 0202).
 */
export interface WriteServices {
  checkout: Pick<CheckoutService, 'create'>;
  paymentLinks: Pick<PaymentLinkService, 'create'>;
  customers: Pick<CustomerService, 'create'>;
  products: Pick<ProductService, 'create' | 'update'>;
  prices: Pick<PriceService, 'create' | 'update'>;
  subscriptions: Pick<SubscriptionService, 'create' | 'update' | 'cancel'>;
  claims: Pick<ClaimsService, 'create'>;
}

/** What the MCP tools call: the same service instances as the API's routes. */
export interface McpDeps {
  services: WriteServices & {
    checkout: Pick<CheckoutService, 'create' | 'retrieve'>;
    paymentLinks: Pick<PaymentLinkService, 'create' | 'list' | 'retrieve'>;
    customers: Pick<CustomerService, 'create' | 'list' | 'retrieve'>;
    products: Pick<ProductService, 'create' | 'update' | 'list' | 'retrieve'>;
    prices: Pick<PriceService, 'create' | 'update' | 'list' | 'retrieve'>;
    subscriptions: Pick<SubscriptionService, 'create' | 'update' | 'cancel' | 'list' | 'retrieve'>;
    claims: Pick<ClaimsService, 'create' | 'cancel' | 'list' | 'retrieve'>;
    invoices: Pick<InvoiceService, 'list' | 'retrieve'>;
    paymentIntents: Pick<PaymentIntentService, 'list' | 'retrieve'>;
    refunds: Pick<RefundService, 'create' | 'preview' | 'ofPaymentIntents'>;
    events: Pick<EventService, 'list'>;
    settlement: Pick<SettlementService, 'listRuns' | 'retrieveRun'>;
  };
  /**
   * Runs `work` with write services whose every database write is rolled back afterwards, and
   * returns what it returned: the dry run, and the preview, of a write tool (decisions 0121, 0202).
   */
  dryRun<T>(work: (services: WriteServices) => Promise<T>): Promise<T>;
  /** The API's Idempotency-Key store: tool calls keep its rules in it (decision 0121). */
  idempotency: Pick<IdempotencyService, 'begin' | 'finish' | 'release'>;
  safety: AgentSafety;
}
