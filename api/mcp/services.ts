import type { CheckoutService } from '../../services/checkout';
import type { PaymentLinkService } from '../../services/payment-links/payment-links';
import type { CustomerService } from '../../services/customers/customers';
import type { ProductService } from '../../services/catalog/products';
import type { PriceService } from '../../services/catalog/prices';
import type { PaymentIntentService } from '../../services/payments/payment-intents';
import type { RefundService } from '../../services/payments/refunds';
import type { EventService } from '../../services/events/events-service';
import type { SettlementService } from '../../services/settlement/settlement-service';
import type { IdempotencyService } from '../../services/idempotency';
import type { AgentSafety } from '../../services/mcp/agent-safety';

/** The services whose writes the create tools make, and can make again in a dry run. */
export interface WriteServices {
  checkout: Pick<CheckoutService, 'create'>;
  paymentLinks: Pick<PaymentLinkService, 'create'>;
  customers: Pick<CustomerService, 'create'>;
}

/** What the MCP tools call: the same service instances as the API's routes. */
export interface McpDeps {
  services: WriteServices & {
    checkout: Pick<CheckoutService, 'create' | 'retrieve'>;
    paymentLinks: Pick<PaymentLinkService, 'create' | 'list' | 'retrieve'>;
    customers: Pick<CustomerService, 'create' | 'list' | 'retrieve'>;
    products: Pick<ProductService, 'list' | 'retrieve'>;
    prices: Pick<PriceService, 'list' | 'retrieve'>;
    paymentIntents: Pick<PaymentIntentService, 'list' | 'retrieve'>;
    refunds: Pick<RefundService, 'create' | 'preview' | 'ofPaymentIntents'>;
    events: Pick<EventService, 'list'>;
    settlement: Pick<SettlementService, 'listRuns' | 'retrieveRun'>;
  };
  /**
   * Runs `work` with write services whose every database write is rolled back afterwards, and
   * returns what it returned: the dry run of a create tool (decision 0121).
   */
  dryRun<T>(work: (services: WriteServices) => Promise<T>): Promise<T>;
  /** The API's Idempotency-Key store: tool calls keep its rules in it (decision 0121). */
  idempotency: Pick<IdempotencyService, 'begin' | 'finish' | 'release'>;
  safety: AgentSafety;
}
