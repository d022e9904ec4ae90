import { z } from 'zod';
import { CheckoutSessionSchema } from '../../services/checkout/checkout-session-object';
import { PaymentIntentSchema } from '../../services/payments/payment-intent-object';
import { RefundSchema } from '../../services/payments/refund-object';
import { CustomerSchema } from '../../services/customers/customer-object';
import { ProductSchema } from '../../services/catalog/product-object';
import { PriceSchema } from '../../services/catalog/price-object';
import { PaymentLinkSchema } from '../../services/payment-links/payment-link-object';
import { EventSchema } from '../../services/events/event-object';
import { SettlementRunSchema } from '../../services/settlement/settlement-run-object';
import { InvoiceSchema } from '../../services/invoices/invoice-object';
import { listOf, listResponse } from '../list';
import { pageOptions } from '../fields';
import { IntentListQuery } from '../routes/payment-intents';
import { CustomerListQuery } from '../routes/customers';
import { ProductListQuery } from '../routes/products';
import { PriceListQuery } from '../routes/prices';
import { LinkListQuery } from '../routes/payment-links';
import { EventListQuery } from '../routes/events';
import { InvoiceListQuery } from '../routes/invoices';
import { ListRuns, filtersOf } from '../routes/settlement-runs';
import type { McpDeps } from './services';
import { LIST_NOTE, idInput, readTool, type ToolContext, type ToolDef } from './tool';

/** A payment intent with its refunds, oldest first: what the payment tools answer. */
export const PaymentWithRefundsSchema = PaymentIntentSchema.extend({
  refunds: z.array(RefundSchema).describe('Its refunds, oldest first'),
});

/** The tools that only read: payments with their refunds, customers, catalog, links, invoices, events, settlement. */
export function readTools(deps: Pick<McpDeps, 'services'>): ToolDef[] {
  const s = deps.services;
  const withRefunds = async <T extends { id: string }>(ctx: ToolContext, intents: T[]) => {
    const refunds = await s.refunds.ofPaymentIntents(
      ctx.scope,
      intents.map((p) => p.id),
    );
    return intents.map((p) => ({ ...p, refunds: refunds.get(p.id) ?? [] }));
  };

  return [
    readTool({
      name: 'get_checkout_session',
      title: 'Get a checkout session',
      description:
        'Read a checkout session (cs_…): status (open, complete, expired), payment_status (paid, awaiting_claim, unpaid, no_payment_required), amount in whole ISK, the payment_intent once paid, and the customer\'s answers in custom_fields. status "complete" means the buyer finished; only payment_status "paid" means the money arrived.',
      input: idInput('checkout session', 'cs'),
      output: CheckoutSessionSchema,
      run: (ctx, { id }) => s.checkout.retrieve(ctx.scope, id),
    }),
    readTool({
      name: 'list_payment_intents',
      title: 'List payments',
      description: `List payments (payment intents, pi_…) with their refunds: amount, amount_received and amount_refunded in whole ISK, status, fee and net. Filter by customer. ${LIST_NOTE}`,
      input: IntentListQuery,
      output: listOf(PaymentWithRefundsSchema),
      run: async (ctx, query) => {
        const page = await s.paymentIntents.list(ctx.scope, {
          ...pageOptions(query),
          ...(query.customer && { customerId: query.customer }),
        });
        return listResponse('/v1/payment-intents', await withRefunds(ctx, page.data), page.hasMore);
      },
    }),
    readTool({
      name: 'get_payment_intent',
      title: 'Get a payment',
      description:
        'Read one payment (payment intent, pi_…) with its refunds: what was charged, received and refunded (whole ISK), its status, card details, fee and net, and the checkout session or subscription it belongs to.',
      input: idInput('payment intent', 'pi'),
      output: PaymentWithRefundsSchema,
      run: async (ctx, { id }) =>
        (await withRefunds(ctx, [await s.paymentIntents.retrieve(ctx.scope, id)]))[0],
    }),
    readTool({
      name: 'list_customers',
      title: 'List customers',
      description: `List customers (cus_…); filter by exact email (any letter case) or kennitala to search. ${LIST_NOTE}`,
      input: CustomerListQuery,
      output: listOf(CustomerSchema),
      run: async (ctx, query) => {
        const { email, kennitala, test_clock } = query;
        const page = await s.customers.list(ctx.scope, {
          ...pageOptions(query),
          email,
          kennitala,
          test_clock,
        });
        return listResponse('/v1/customers', page.data, page.hasMore);
      },
    }),
    readTool({
      name: 'get_customer',
      title: 'Get a customer',
      description: 'Read one customer (cus_…): name, email, phone, kennitala, address and metadata.',
      input: idInput('customer', 'cus'),
      output: CustomerSchema,
      run: (ctx, { id }) => s.customers.retrieve(ctx.scope, id),
    }),
    readTool({
      name: 'list_products',
      title: 'List products',
      description: `List products (prod_…) with their default price and VAT rate; filter by active. ${LIST_NOTE}`,
      input: ProductListQuery,
      output: listOf(ProductSchema),
      run: async (ctx, query) => {
        const page = await s.products.list(ctx.scope, { ...pageOptions(query), active: query.active });
        return listResponse('/v1/products', page.data, page.hasMore);
      },
    }),
    readTool({
      name: 'get_product',
      title: 'Get a product',
      description: 'Read one product (prod_…): name, description, images, VAT rate, default price, variants.',
      input: idInput('product', 'prod'),
      output: ProductSchema,
      run: (ctx, { id }) => s.products.retrieve(ctx.scope, id),
    }),
    readTool({
      name: 'list_prices',
      title: 'List prices',
      description: `List prices (price_…): VAT-inclusive unit_amount in whole ISK, one_time or recurring (week, month, year). Filter by product, variant, active or type. ${LIST_NOTE}`,
      input: PriceListQuery,
      output: listOf(PriceSchema),
      run: async (ctx, query) => {
        const { product, variant, active, type } = query;
        const page = await s.prices.list(ctx.scope, {
          ...pageOptions(query),
          product,
          variant,
          active,
          type,
        });
        return listResponse('/v1/prices', page.data, page.hasMore);
      },
    }),
    readTool({
      name: 'get_price',
      title: 'Get a price',
      description:
        'Read one price (price_…): unit_amount in whole ISK, its product, and its billing interval.',
      input: idInput('price', 'price'),
      output: PriceSchema,
      run: (ctx, { id }) => s.prices.retrieve(ctx.scope, id),
    }),
    readTool({
      name: 'list_payment_links',
      title: 'List payment links',
      description: `List payment links (plink_…): reusable URLs that open a new checkout for each visitor. Filter by active. ${LIST_NOTE}`,
      input: LinkListQuery,
      output: listOf(PaymentLinkSchema),
      run: async (ctx, query) => {
        const page = await s.paymentLinks.list(ctx.scope, { ...pageOptions(query), active: query.active });
        return listResponse('/v1/payment-links', page.data, page.hasMore);
      },
    }),
    readTool({
      name: 'get_payment_link',
      title: 'Get a payment link',
      description:
        'Read one payment link (plink_…): its url, what it sells, whether it is active, and its limit.',
      input: idInput('payment link', 'plink'),
      output: PaymentLinkSchema,
      run: (ctx, { id }) => s.paymentLinks.retrieve(ctx.scope, id),
    }),
    readTool({
      name: 'list_invoices',
      title: 'List invoices',
      description: `List invoices: each is issued when a payment is made (a checkout, a subscription's period, a paid krafa) and never changes. Number, status (paid, open), lines, VAT per rate, total and total_vat in whole ISK, buyer, seller. Filter by customer or subscription. ${LIST_NOTE}`,
      input: InvoiceListQuery,
      output: listOf(InvoiceSchema),
      run: async (ctx, query) => {
        const page = await s.invoices.list(ctx.scope, {
          ...pageOptions(query),
          ...(query.customer !== undefined && { customerId: query.customer }),
          ...(query.subscription !== undefined && { subscriptionId: query.subscription }),
        });
        return listResponse('/v1/invoices', page.data, page.hasMore);
      },
    }),
    readTool({
      name: 'get_invoice',
      title: 'Get an invoice',
      description:
        'Read one invoice: its number, lines (quantity, unit_amount and amount with VAT), VAT per rate, total and total_vat (whole ISK), amount_credited by refunds, the payment, customer and subscription it belongs to. The PDF is at GET /v1/invoices/{id}/pdf.',
      input: idInput('invoice', 'in'),
      output: InvoiceSchema,
      run: (ctx, { id }) => s.invoices.retrieve(ctx.scope, id),
    }),
    readTool({
      name: 'list_events',
      title: 'List events',
      description:
        'List events (evt_…) oldest first, as webhooks deliver them: payment_intent.captured, payment_intent.refunded, checkout.session.completed, subscription.*, claim.*. Filter by type; poll with `after` (ISO time) or `starting_after` (the last event id seen). `limit` 1–100, default 25.',
      input: EventListQuery,
      output: listOf(EventSchema),
      run: async (ctx, query) => {
        const page = await s.events.list(ctx.scope, {
          limit: query.limit,
          ...(query.after !== undefined && { after: new Date(query.after) }),
          ...(query.starting_after !== undefined && { startingAfter: query.starting_after }),
          ...(query.type !== undefined && { type: query.type }),
        });
        return listResponse('/v1/events', page.data, page.hasMore);
      },
    }),
    readTool({
      name: 'list_settlement_runs',
      title: 'List settlement runs',
      description: `Settlement summary: the runs (stl_…) that pay the merchant's captured payments out to its bank account, each with gross, fee and net in whole ISK, its line count, status (open, pending_review, approved, submitted, paid, failed) and payout. Filter by status or settlement_date (gte, lte: YYYY-MM-DD). ${LIST_NOTE}`,
      input: ListRuns,
      output: listOf(SettlementRunSchema),
      run: async (ctx, query) => {
        const page = await s.settlement.listRuns(ctx.scope, filtersOf(query), pageOptions(query));
        return listResponse('/v1/settlement-runs', page.data, page.hasMore);
      },
    }),
    readTool({
      name: 'get_settlement_run',
      title: 'Get a settlement run',
      description:
        'Read one settlement run (stl_…): its totals (gross − fee = net, whole ISK), status, dates and payout.',
      input: idInput('settlement run', 'stl'),
      output: SettlementRunSchema,
      run: (ctx, { id }) => s.settlement.retrieveRun(ctx.scope, id),
    }),
  ];
}
