import { setPos } from '../helpers/pos';
import { sharedTestStack, type TestMerchant, type TestStack } from '../helpers/stack';
import { until } from '../helpers/until';

// Issue 16.1, decision 0108: one rule for ids that name nothing, on every endpoint (Stripe's rule).
// An id in the path → 404 resource_missing naming the path parameter; an id in the body or the query
// → 400 resource_missing naming the parameter. The sweeps read the operations from /v1/openapi.json,
// so a new endpoint is swept the day it is declared.

let stack: TestStack;
let merchant: TestMerchant;
let doc: OpenApi;

/** Ids of objects that exist, for the parts of a request that must exist. */
const ids: Record<string, string> = {};

type Operation = {
  operationId: string;
  parameters?: { name: string; in: string; required?: boolean; schema: Schema }[];
  requestBody?: { content: Record<string, { schema: Schema }> };
};
type Schema = Record<string, any>;
type OpenApi = { paths: Record<string, Record<string, Operation>> };
type Res = { status: number; body: any; text: string };

const MISSING = 'zz_nonexistent_0000000000';

async function ok(path: string, json?: unknown, method = 'POST'): Promise<any> {
  const res = await stack.api(merchant.testKey, path, json === undefined ? {} : { method, json });
  if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${res.text}`);
  return res.body;
}

const card = { number: '4242 4242 4242 4242', exp_month: 12, exp_year: 2040, cvc: '123' };
const future = () => Math.floor(Date.now() / 1000) + 30 * 86_400;

beforeAll(async () => {
  stack = await sharedTestStack();
  merchant = await stack.merchant();
  doc = (await stack.api(null, '/v1/openapi.json')).body as OpenApi;
  // Claims are issued under the merchant's kennitala.
  await ok('/v1/merchant', { kennitala: '5510730339' }, 'PATCH');
  const product = await ok('/v1/products', { name: 'Vara', vat_rate: 24 });
  ids.product = product.id;
  ids.variant = (await ok(`/v1/products/${product.id}/variants`, { name: 'Stór', unit_amount: 1500 })).id;
  ids.price = (await ok('/v1/prices', { product: product.id, unit_amount: 1000 })).id;
  ids.recurringPrice = (
    await ok('/v1/prices', { product: product.id, unit_amount: 2990, recurring: { interval: 'month' } })
  ).id;
  ids.customer = (await ok('/v1/customers', { name: 'Jóna', kennitala: '1201603389' })).id;
  // A till names only a business as the buyer of an invoiced sale (decision 0235).
  ids.businessCustomer = (await ok('/v1/customers', { name: 'Fyrirtæki ehf.', business: true })).id;
  ids.paymentMethod = (await ok('/v1/payment-methods', { customer: ids.customer, card })).id;
  ids.coupon = (await ok('/v1/coupons', { percent_off: 10 })).id;
  ids.promotionCode = (await ok('/v1/promotion-codes', { coupon: ids.coupon })).id;
  ids.paidIntent = (await ok('/v1/payment-intents', { amount: 5000, card, confirm: true })).id;
  ids.openIntent = (await ok('/v1/payment-intents', { amount: 5000, customer: ids.customer })).id;
  ids.refund = (await ok('/v1/refunds', { payment_intent: ids.paidIntent, amount: 100 })).id;
  ids.subscription = (
    await ok('/v1/subscriptions', {
      customer: ids.customer,
      price: ids.recurringPrice,
      default_payment_method: ids.paymentMethod,
      trial_period_days: 7,
    })
  ).id;
  ids.testClock = (await ok('/v1/test_helpers/test_clocks', { frozen_time: future() })).id;
  ids.channel = (
    await ok('/v1/notification-channels', {
      type: 'webhook',
      config: { url: 'http://127.0.0.1:9/hook' },
      event_subscriptions: ['*'],
    })
  ).id;
  await ok('/v1/notification-channels/test-webhooks', { channel: ids.channel });
  ids.delivery = (await ok(`/v1/notification-channels/${ids.channel}/deliveries`)).data[0].id;
  ids.session = (await ok('/v1/checkout/sessions', { amount: 1000 })).id;
  // A sale gives an invoice, its refund a credit note.
  const sale = (await ok('/v1/checkout/sessions', { amount: 2500 })).id;
  const sold = await ok(`/v1/test_helpers/checkout/sessions/${sale}/complete`, {});
  await ok('/v1/refunds', { payment_intent: sold.payment_intent, amount: 500 });
  ids.invoice = (await ok('/v1/invoices')).data[0].id;
  ids.creditNote = (await ok('/v1/credit-notes')).data[0].id;
  // The dispute test card's payment is disputed by the acquirer (decision 0155).
  const disputed = (
    await ok('/v1/payment-intents', {
      amount: 3000,
      card: { ...card, number: '4000000000000259' },
      confirm: true,
    })
  ).id;
  ids.dispute = (
    await until(
      () => ok(`/v1/disputes?payment_intent=${disputed}`),
      (r) => r.data.length === 1,
      20_000,
    )
  ).data[0].id;
  ids.paymentLink = (await ok('/v1/payment-links', { amount: 1000 })).id;
  ids.event = (await ok('/v1/events')).data[0].id;
  // The point of sale, switched on for this merchant: a register with a sale.
  await setPos(stack, merchant.id, true);
  ids.register = (await ok('/v1/pos/registers', { name: 'Kassi' })).id;
  ids.staff = (await ok('/v1/pos/staff', { name: 'Gunna', role: 'manager', pin: '27182818' })).id;
  await ok(`/v1/pos/registers/${ids.register}/shift/open`, { opening_float: 5000, staff: ids.staff });
  ids.sale = (
    await ok(`/v1/pos/registers/${ids.register}/sales`, {
      lines: [{ description: 'Kaffi', unit_amount: 650, vat_rate: 11, quantity: 1 }],
      payments: [{ method: 'cash', amount: 650 }],
      staff: ids.staff,
    })
  ).id;
});
afterAll(async () => {
  await stack.stop();
});

function operations(): { method: string; path: string; op: Operation }[] {
  return Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => ({ method, path, op })),
  );
}

const describeRes = (res: Res) =>
  `${res.status} ${res.body?.error?.code ?? ''} param=${res.body?.error?.param ?? '(none)'}`;

// ---------------------------------------------------------------------------------------------
// Path ids

/** The existing object each path parameter names, by path template. */
const pathIds: Record<string, () => Record<string, string>> = {
  '/v1/events/{id}': () => ({ id: ids.event! }),
  '/v1/events/{id}/resend': () => ({ id: ids.event! }),
  '/v1/test_helpers/checkout/sessions/{id}/complete': () => ({ id: ids.session! }),
  '/v1/notification-channels/{id}': () => ({ id: ids.channel! }),
  '/v1/notification-channels/{id}/rotate-secret': () => ({ id: ids.channel! }),
  '/v1/notification-channels/{id}/deliveries': () => ({ id: ids.channel! }),
  '/v1/notification-channels/{id}/deliveries/{delivery}': () => ({
    id: ids.channel!,
    delivery: ids.delivery!,
  }),
  '/v1/notification-channels/{id}/deliveries/{delivery}/resend': () => ({
    id: ids.channel!,
    delivery: ids.delivery!,
  }),
  '/v1/products/{id}': () => ({ id: ids.product! }),
  '/v1/products/{id}/variants': () => ({ id: ids.product! }),
  '/v1/products/{id}/variants/{variant}': () => ({ id: ids.product!, variant: ids.variant! }),
  '/v1/prices/{id}': () => ({ id: ids.price! }),
  '/v1/customers/{id}': () => ({ id: ids.customer! }),
  '/v1/customers/{id}/default-payment-method': () => ({ id: ids.customer! }),
  '/v1/coupons/{id}': () => ({ id: ids.coupon! }),
  '/v1/promotion-codes/{id}': () => ({ id: ids.promotionCode! }),
  '/v1/checkout/sessions/{id}': () => ({ id: ids.session! }),
  '/v1/checkout/sessions/{id}/': () => ({ id: ids.session! }),
  '/v1/payment-intents/{id}': () => ({ id: ids.openIntent! }),
  '/v1/payment-intents/{id}/confirm': () => ({ id: ids.openIntent! }),
  '/v1/payment-intents/{id}/capture': () => ({ id: ids.openIntent! }),
  '/v1/payment-intents/{id}/cancel': () => ({ id: ids.openIntent! }),
  '/v1/payment-intents/{id}/refund': () => ({ id: ids.paidIntent! }),
  '/v1/refunds/{id}': () => ({ id: ids.refund! }),
  '/v1/invoices/{id}': () => ({ id: ids.invoice! }),
  '/v1/invoices/{id}/pdf': () => ({ id: ids.invoice! }),
  '/v1/invoices/{id}/ubl': () => ({ id: ids.invoice! }),
  '/v1/credit-notes/{id}': () => ({ id: ids.creditNote! }),
  '/v1/credit-notes/{id}/ubl': () => ({ id: ids.creditNote! }),
  '/v1/disputes/{id}': () => ({ id: ids.dispute! }),
  '/v1/disputes/{id}/close': () => ({ id: ids.dispute! }),
  '/v1/payment-methods/{id}': () => ({ id: ids.paymentMethod! }),
  '/v1/payment-methods/{id}/attach': () => ({ id: ids.paymentMethod! }),
  '/v1/payment-methods/{id}/detach': () => ({ id: ids.paymentMethod! }),
  '/v1/subscriptions/{id}': () => ({ id: ids.subscription! }),
  '/v1/test_helpers/test_clocks/{id}': () => ({ id: ids.testClock! }),
  '/v1/test_helpers/test_clocks/{id}/advance': () => ({ id: ids.testClock! }),
  '/v1/payment-links/{id}': () => ({ id: ids.paymentLink! }),
  // No claim or settlement run exists in this file: only their missing ids are tried.
  '/v1/claims/{id}': () => ({}),
  '/v1/claims/{id}/cancel': () => ({}),
  '/v1/claims/{id}/collection': () => ({}),
  '/v1/test_helpers/claims/{id}/pay': () => ({}),
  '/v1/settlement-runs/{id}': () => ({}),
  '/v1/settlement-runs/{id}/lines': () => ({}),
  '/v1/settlement-runs/{id}/lines.csv': () => ({}),
  '/v1/pos/registers/{id}': () => ({ id: ids.register! }),
  '/v1/pos/registers/{id}/pairing_codes': () => ({ id: ids.register! }),
  '/v1/pos/registers/{id}/shift': () => ({ id: ids.register! }),
  '/v1/pos/registers/{id}/shift/open': () => ({ id: ids.register! }),
  '/v1/pos/registers/{id}/shift/close': () => ({ id: ids.register! }),
  '/v1/pos/registers/{id}/drawer_events': () => ({ id: ids.register! }),
  '/v1/pos/registers/{id}/sales': () => ({ id: ids.register! }),
  '/v1/pos/registers/{id}/x_report': () => ({ id: ids.register! }),
  '/v1/pos/registers/{id}/z_reports': () => ({ id: ids.register! }),
  '/v1/pos/staff/{id}': () => ({ id: ids.staff! }),
  '/v1/pos/sales/{id}': () => ({ id: ids.sale! }),
  '/v1/pos/sales/{id}/receipt': () => ({ id: ids.sale! }),
  '/v1/pos/sales/{id}/refunds': () => ({ id: ids.sale! }),
  // No terminal or Z-report exists in this file: only their missing ids are tried.
  '/v1/pos/terminals/{id}': () => ({}),
  '/v1/pos/z_reports/{id}': () => ({}),
  '/v1/delivery/carriers/{id}': () => ({ id: 'dropp' }),
  // No delivery or platform connection exists in this file: only their missing ids are tried.
  '/v1/deliveries/{id}': () => ({}),
  '/v1/deliveries/{id}/cancel': () => ({}),
  '/v1/test_helpers/deliveries/{id}/advance': () => ({}),
  '/v1/platform-connections/{id}': () => ({}),
  '/api/v1/{platform}/webhook/': () => ({ platform: 'woocommerce' }),
};

/** A body that passes validation, for operations on a path id whose body has required fields. */
const validBodies: Record<string, () => unknown> = {
  'post /v1/products/{id}/variants': () => ({ name: 'Lítil', unit_amount: 900 }),
  'post /v1/payment-methods/{id}/attach': () => ({ customer: ids.customer }),
  'post /v1/customers/{id}/default-payment-method': () => ({ payment_method: ids.paymentMethod }),
  'post /v1/test_helpers/test_clocks/{id}/advance': () => ({ frozen_time: future() + 86_400 }),
  'post /v1/events/{id}/resend': () => ({ channel: ids.channel }),
  'post /v1/pos/registers/{id}/shift/open': () => ({ opening_float: 1000, staff: ids.staff }),
  'post /v1/pos/registers/{id}/shift/close': () => ({ counted_cash: 1000, staff: ids.staff }),
  'post /v1/pos/registers/{id}/drawer_events': () => ({ kind: 'no_sale', staff: ids.staff }),
  'post /v1/pos/registers/{id}/sales': () => ({
    lines: [{ description: 'Kaffi', unit_amount: 650, vat_rate: 11, quantity: 1 }],
    payments: [{ method: 'cash', amount: 650 }],
    staff: ids.staff,
  }),
  'post /v1/pos/registers/{id}/z_reports': () => ({ staff: ids.staff }),
  'post /v1/pos/sales/{id}/refunds': () => ({ method: 'cash', amount: 1, staff: ids.staff }),
  'post /v1/delivery/carriers/{id}': () => ({ active: false }),
  'post /v1/disputes/{id}': () => ({ evidence: { uncategorized_text: 'Delivered and used.' } }),
};

/** Path parameters that name no object, and where their wrong values are tested. */
const NOT_IDS: Record<string, string> = {
  '/v1/reports/periods/{period}/close':
    "a period by name ('YYYY-MM' or 'YYYY'): a name that is not one is 400 naming period (books.test.ts)",
};

function fill(path: string, values: Record<string, string>): string {
  return path.replace(/\{(\w+)\}/g, (_m, name: string) => encodeURIComponent(values[name]!));
}

test('every path id that names nothing is 404 resource_missing naming the path parameter', async () => {
  const failures: string[] = [];
  let tried = 0;
  for (const { method, path, op } of operations()) {
    const names = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
    if (names.length === 0) continue;
    if (NOT_IDS[path]) continue;
    const existing = pathIds[path];
    if (!existing) {
      failures.push(`${method} ${path}: no existing ids declared for this path in the test`);
      continue;
    }
    for (const missing of names) {
      const values = { ...existing(), [missing]: MISSING };
      if (names.some((n) => values[n] === undefined)) continue;
      const body = validBodies[`${method} ${path}`]?.() ?? (op.requestBody ? {} : undefined);
      const res = await stack.api(merchant.testKey, fill(path, values), {
        method: method.toUpperCase(),
        ...(body !== undefined && { json: body }),
      });
      tried += 1;
      const good =
        res.status === 404 &&
        res.body?.error?.type === 'invalid_request_error' &&
        res.body?.error?.code === 'resource_missing' &&
        res.body?.error?.param === missing;
      if (!good)
        failures.push(`${method.toUpperCase()} ${path} with ${missing} missing: ${describeRes(res)}`);
    }
  }
  expect(failures).toEqual([]);
  expect(tried).toBeGreaterThan(50);
});

// ---------------------------------------------------------------------------------------------
// Body and query ids

interface RefCase {
  /** `post /v1/prices`, as in the document. */
  op: string;
  /** The field as the sweep finds it in the schema: `body.items[].price`, `query.customer`. */
  field: string;
  /** The request with `x` in the field and everything else valid and existing. */
  request: (x: string) => { path?: Record<string, string>; body?: unknown; query?: Record<string, string> };
  /** The param the error must name. */
  param: string;
}

const sub = (x: Record<string, unknown>) => ({
  customer: ids.customer,
  price: ids.recurringPrice,
  default_payment_method: ids.paymentMethod,
  trial_period_days: 7,
  ...x,
});

const sessionCases = (op: string): RefCase[] => [
  {
    op,
    field: 'body.items[].product',
    request: (x) => ({ body: { items: [{ product: x }] } }),
    param: 'items.0.product',
  },
  {
    op,
    field: 'body.items[].variant',
    request: (x) => ({ body: { items: [{ product: ids.product, variant: x }] } }),
    param: 'items.0.variant',
  },
  {
    op,
    field: 'body.items[].price',
    request: (x) => ({ body: { items: [{ price: x }] } }),
    param: 'items.0.price',
  },
  { op, field: 'body.product', request: (x) => ({ body: { product: x } }), param: 'product' },
];

const refCases: RefCase[] = [
  {
    op: 'patch /v1/products/{id}',
    field: 'body.default_price',
    request: (x) => ({ path: { id: ids.product! }, body: { default_price: x } }),
    param: 'default_price',
  },
  {
    op: 'post /v1/prices',
    field: 'body.product',
    request: (x) => ({ body: { product: x, unit_amount: 100 } }),
    param: 'product',
  },
  {
    op: 'get /v1/prices',
    field: 'query.product',
    request: (x) => ({ query: { product: x } }),
    param: 'product',
  },
  {
    op: 'get /v1/prices',
    field: 'query.variant',
    request: (x) => ({ query: { variant: x } }),
    param: 'variant',
  },
  {
    op: 'post /v1/customers',
    field: 'body.test_clock',
    request: (x) => ({ body: { test_clock: x } }),
    param: 'test_clock',
  },
  {
    op: 'get /v1/customers',
    field: 'query.test_clock',
    request: (x) => ({ query: { test_clock: x } }),
    param: 'test_clock',
  },
  {
    op: 'post /v1/coupons',
    field: 'body.applies_to.products[]',
    request: (x) => ({ body: { percent_off: 5, applies_to: { products: [ids.product, x] } } }),
    param: 'applies_to.products.1',
  },
  {
    op: 'post /v1/promotion-codes',
    field: 'body.coupon',
    request: (x) => ({ body: { coupon: x } }),
    param: 'coupon',
  },
  {
    op: 'post /v1/promotion-codes',
    field: 'body.customer',
    request: (x) => ({ body: { coupon: ids.coupon, customer: x } }),
    param: 'customer',
  },
  {
    op: 'get /v1/promotion-codes',
    field: 'query.coupon',
    request: (x) => ({ query: { coupon: x } }),
    param: 'coupon',
  },
  {
    op: 'get /v1/promotion-codes',
    field: 'query.customer',
    request: (x) => ({ query: { customer: x } }),
    param: 'customer',
  },
  ...sessionCases('post /v1/checkout/sessions/'),
  {
    op: 'post /v1/checkout/sessions/',
    field: 'body.customer',
    request: (x) => ({ body: { amount: 1000, customer: x } }),
    param: 'customer',
  },
  ...sessionCases('post /v1/payment-links'),
  {
    op: 'post /v1/payment-links',
    field: 'body.items[].price',
    request: (x) => ({ body: { mode: 'subscription', items: [{ price: x }] } }),
    param: 'items.0.price',
  },
  {
    op: 'post /v1/payment-intents',
    field: 'body.customer',
    request: (x) => ({ body: { amount: 1000, customer: x } }),
    param: 'customer',
  },
  {
    op: 'post /v1/payment-intents',
    field: 'body.payment_method',
    request: (x) => ({ body: { amount: 1000, customer: ids.customer, payment_method: x } }),
    param: 'payment_method',
  },
  {
    op: 'get /v1/payment-intents',
    field: 'query.customer',
    request: (x) => ({ query: { customer: x } }),
    param: 'customer',
  },
  {
    op: 'get /v1/invoices',
    field: 'query.customer',
    request: (x) => ({ query: { customer: x } }),
    param: 'customer',
  },
  {
    op: 'get /v1/invoices',
    field: 'query.subscription',
    request: (x) => ({ query: { subscription: x } }),
    param: 'subscription',
  },
  {
    op: 'get /v1/credit-notes',
    field: 'query.invoice',
    request: (x) => ({ query: { invoice: x } }),
    param: 'invoice',
  },
  {
    op: 'post /v1/payment-intents/{id}/confirm',
    field: 'body.payment_method',
    request: (x) => ({ path: { id: ids.openIntent! }, body: { payment_method: x } }),
    param: 'payment_method',
  },
  {
    op: 'post /v1/refunds',
    field: 'body.payment_intent',
    request: (x) => ({ body: { payment_intent: x } }),
    param: 'payment_intent',
  },
  {
    op: 'get /v1/disputes',
    field: 'query.payment_intent',
    request: (x) => ({ query: { payment_intent: x } }),
    param: 'payment_intent',
  },
  {
    op: 'get /v1/refunds',
    field: 'query.payment_intent',
    request: (x) => ({ query: { payment_intent: x } }),
    param: 'payment_intent',
  },
  {
    op: 'post /v1/payment-methods',
    field: 'body.customer',
    request: (x) => ({ body: { card, customer: x } }),
    param: 'customer',
  },
  {
    op: 'get /v1/payment-methods',
    field: 'query.customer',
    request: (x) => ({ query: { customer: x } }),
    param: 'customer',
  },
  {
    op: 'post /v1/payment-methods/{id}/attach',
    field: 'body.customer',
    request: (x) => ({ path: { id: ids.paymentMethod! }, body: { customer: x } }),
    param: 'customer',
  },
  {
    op: 'post /v1/customers/{id}/default-payment-method',
    field: 'body.payment_method',
    request: (x) => ({ path: { id: ids.customer! }, body: { payment_method: x } }),
    param: 'payment_method',
  },
  {
    op: 'post /v1/subscriptions',
    field: 'body.customer',
    request: (x) => ({ body: sub({ customer: x }) }),
    param: 'customer',
  },
  {
    op: 'post /v1/subscriptions',
    field: 'body.price',
    request: (x) => ({ body: sub({ price: x }) }),
    param: 'price',
  },
  {
    op: 'post /v1/subscriptions',
    field: 'body.default_payment_method',
    request: (x) => ({ body: sub({ default_payment_method: x }) }),
    param: 'default_payment_method',
  },
  {
    op: 'post /v1/subscriptions',
    field: 'body.coupon',
    request: (x) => ({ body: sub({ coupon: x }) }),
    param: 'coupon',
  },
  {
    op: 'get /v1/subscriptions',
    field: 'query.customer',
    request: (x) => ({ query: { customer: x } }),
    param: 'customer',
  },
  {
    op: 'get /v1/subscriptions',
    field: 'query.price',
    request: (x) => ({ query: { price: x } }),
    param: 'price',
  },
  {
    op: 'post /v1/subscriptions/{id}',
    field: 'body.price',
    request: (x) => ({ path: { id: ids.subscription! }, body: { price: x } }),
    param: 'price',
  },
  {
    op: 'post /v1/subscriptions/{id}',
    field: 'body.default_payment_method',
    request: (x) => ({ path: { id: ids.subscription! }, body: { default_payment_method: x } }),
    param: 'default_payment_method',
  },
  {
    op: 'post /v1/subscriptions/{id}',
    field: 'body.coupon',
    request: (x) => ({ path: { id: ids.subscription! }, body: { coupon: x } }),
    param: 'coupon',
  },
  {
    op: 'post /v1/billing_portal/sessions',
    field: 'body.customer',
    request: (x) => ({ body: { customer: x, return_url: 'https://example.com/account' } }),
    param: 'customer',
  },
  {
    op: 'post /v1/billing_portal/sessions',
    field: 'body.allowed_prices[]',
    request: (x) => ({
      body: { customer: ids.customer, return_url: 'https://example.com/account', allowed_prices: [x] },
    }),
    param: 'allowed_prices.0',
  },
  {
    op: 'post /v1/claims',
    field: 'body.customer',
    request: (x) => ({
      body: {
        customer: x,
        amount: 5000,
        due_date: new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10),
      },
    }),
    param: 'customer',
  },
  {
    op: 'get /v1/claims',
    field: 'query.customer',
    request: (x) => ({ query: { customer: x } }),
    param: 'customer',
  },
  {
    op: 'get /v1/deliveries',
    field: 'query.checkout_session',
    request: (x) => ({ query: { checkout_session: x } }),
    param: 'checkout_session',
  },
  {
    op: 'post /v1/events/{id}/resend',
    field: 'body.channel',
    request: (x) => ({ path: { id: ids.event! }, body: { channel: x } }),
    param: 'channel',
  },
  {
    op: 'post /v1/notification-channels/test-webhooks',
    field: 'body.channel',
    request: (x) => ({ body: { channel: x } }),
    param: 'channel',
  },
];

const posSale = (x: Record<string, unknown>) => ({
  lines: [{ description: 'Kaffi', unit_amount: 650, vat_rate: 11, quantity: 1 }],
  payments: [{ method: 'cash', amount: 650 }],
  staff: ids.staff,
  ...x,
});
const onRegister = (op: string, field: string, body: (x: string) => unknown, param: string): RefCase => ({
  op,
  field,
  request: (x) => ({ path: { id: ids.register! }, body: body(x) }),
  param,
});
refCases.push(
  onRegister(
    'post /v1/pos/registers/{id}/shift/open',
    'body.staff',
    (x) => ({ opening_float: 1, staff: x }),
    'staff',
  ),
  onRegister(
    'post /v1/pos/registers/{id}/shift/close',
    'body.staff',
    (x) => ({ counted_cash: 1, staff: x }),
    'staff',
  ),
  onRegister(
    'post /v1/pos/registers/{id}/drawer_events',
    'body.staff',
    (x) => ({ kind: 'no_sale', staff: x }),
    'staff',
  ),
  onRegister('post /v1/pos/registers/{id}/sales', 'body.staff', (x) => posSale({ staff: x }), 'staff'),
  onRegister(
    'post /v1/pos/registers/{id}/sales',
    'body.lines[].product',
    (x) => posSale({ lines: [{ product: x, quantity: 1 }] }),
    'lines.0.product',
  ),
  onRegister(
    'post /v1/pos/registers/{id}/sales',
    'body.lines[].variant',
    (x) => posSale({ lines: [{ product: ids.product, variant: x, quantity: 1 }] }),
    'lines.0.variant',
  ),
  onRegister(
    'post /v1/pos/registers/{id}/sales',
    'body.customer',
    (x) => posSale({ customer: x }),
    'customer',
  ),
  onRegister('post /v1/pos/registers/{id}/z_reports', 'body.staff', (x) => ({ staff: x }), 'staff'),
  {
    op: 'post /v1/pos/sales/{id}/refunds',
    field: 'body.staff',
    request: (x) => ({ path: { id: ids.sale! }, body: { method: 'cash', amount: 1, staff: x } }),
    param: 'staff',
  },
  {
    op: 'post /v1/pos/terminals',
    field: 'body.register',
    request: (x) => ({ body: { register: x, registration_code: 'BCDFGHJK' } }),
    param: 'register',
  },
  ...['terminals', 'sales', 'z_reports'].map((list): RefCase => ({
    op: `get /v1/pos/${list}`,
    field: 'query.register',
    request: (x) => ({ query: { register: x } }),
    param: 'register',
  })),
);

/** Fields the sweep finds by shape or name that are not references to objects, and why. */
const notReferences: Record<string, string> = {
  'post /v1/pos/sign_in body.staff':
    'PINs work only on a paired till: with the API key of this file every sign-in is 403 pos_device_required (pos-api.test.ts signs in on a till)',
  'get /v1/promotion-codes query.code': 'the code customers type, not an id: a filter that may match nothing',
  'post /v1/checkout/sessions/ body.promotion_code':
    'the code customers type (its own error: promotion_code_invalid)',
  'post /v1/subscriptions body.promotion_code': 'the code customers type, not an id',
  'post /v1/subscriptions/{id} body.promotion_code': 'the code customers type, not an id',
};

/** Field names that hold a reference to an object wherever they appear. */
const REFERENCE_NAMES =
  /^(customer|price|prices|product|products|variant|coupon|payment_method|default_payment_method|default_price|payment_intent|test_clock|channel|promotion_code|allowed_prices|subscription|session|refund)$/;
const ID_PATTERN = '^[A-Za-z0-9_]{1,64}$';

function referenceFields(schema: Schema | undefined, at: string, out: Set<string>, name = ''): void {
  if (!schema || typeof schema !== 'object') return;
  if (schema.pattern === ID_PATTERN || (REFERENCE_NAMES.test(name) && schema.type === 'string')) out.add(at);
  for (const key of ['anyOf', 'oneOf', 'allOf'])
    for (const s of (schema[key] as Schema[] | undefined) ?? []) referenceFields(s, at, out, name);
  for (const [prop, s] of Object.entries((schema.properties as Record<string, Schema> | undefined) ?? {}))
    referenceFields(s, `${at}.${prop}`, out, prop);
  if (schema.items) referenceFields(schema.items as Schema, `${at}[]`, out, name);
}

test('the sweep below covers every reference field of every operation', () => {
  const found = new Set<string>();
  for (const { method, path, op } of operations()) {
    const fields = new Set<string>();
    referenceFields(op.requestBody?.content['application/json']?.schema, 'body', fields);
    for (const p of op.parameters ?? [])
      if (p.in === 'query' && !['starting_after', 'ending_before'].includes(p.name))
        referenceFields(p.schema, `query.${p.name}`, fields, p.name);
    for (const f of fields) found.add(`${method} ${path} ${f}`);
  }
  const covered = new Set([...refCases.map((c) => `${c.op} ${c.field}`), ...Object.keys(notReferences)]);
  expect([...found].filter((f) => !covered.has(f)).sort()).toEqual([]);
  expect([...covered].filter((f) => !found.has(f)).sort()).toEqual([]);
});

test('every body or query id that names nothing is 400 resource_missing naming the parameter', async () => {
  const failures: string[] = [];
  for (const c of refCases) {
    const [method, template] = c.op.split(' ') as [string, string];
    const req = c.request(MISSING);
    const query = req.query ? `?${new URLSearchParams(req.query).toString()}` : '';
    const res = await stack.api(merchant.testKey, fill(template, req.path ?? {}) + query, {
      method: method.toUpperCase(),
      ...(req.body !== undefined && { json: req.body }),
    });
    const good =
      res.status === 400 &&
      res.body?.error?.type === 'invalid_request_error' &&
      res.body?.error?.code === 'resource_missing' &&
      res.body?.error?.param === c.param &&
      String(res.body?.error?.message).includes(MISSING);
    if (!good) failures.push(`${c.op} ${c.field}: ${describeRes(res)} ${res.body?.error?.message ?? ''}`);
  }
  expect(failures).toEqual([]);
});

test('the same requests with existing ids are not refused for the reference', async () => {
  // Guards the sweep itself: each request reaches the reference check, and only the id is at fault.
  const existing: Record<string, string> = {
    product: ids.product!,
    variant: ids.variant!,
    price: ids.price!,
    customer: ids.customer!,
    coupon: ids.coupon!,
    test_clock: ids.testClock!,
    payment_method: ids.paymentMethod!,
    default_payment_method: ids.paymentMethod!,
    default_price: ids.price!,
    payment_intent: ids.paidIntent!,
    channel: ids.channel!,
    products: ids.product!,
    allowed_prices: ids.recurringPrice!,
    subscription: ids.subscription!,
    invoice: ids.invoice!,
    staff: ids.staff!,
    register: ids.register!,
    checkout_session: ids.session!,
  };
  const failures: string[] = [];
  for (const c of refCases) {
    const [method, template] = c.op.split(' ') as [string, string];
    const name = c.param.split('.').find((p) => existing[p] !== undefined)!;
    let value = existing[name]!;
    const subscriptionLink = (c.request('x').body as { mode?: string } | undefined)?.mode === 'subscription';
    if ((c.op.startsWith('post /v1/subscriptions') || subscriptionLink) && name === 'price')
      value = ids.recurringPrice!;
    if (c.op === 'post /v1/pos/registers/{id}/sales' && name === 'customer') value = ids.businessCustomer!;
    const req = c.request(value);
    const query = req.query ? `?${new URLSearchParams(req.query).toString()}` : '';
    const res = await stack.api(merchant.testKey, fill(template, req.path ?? {}) + query, {
      method: method.toUpperCase(),
      ...(req.body !== undefined && { json: req.body }),
    });
    if (
      res.status >= 500 ||
      res.body?.error?.code === 'resource_missing' ||
      res.body?.error?.param === c.param
    )
      failures.push(`${c.op} ${c.field}: ${describeRes(res)} ${res.body?.error?.message ?? ''}`);
  }
  expect(failures).toEqual([]);
});

test('a list cursor that names nothing is 400 resource_missing naming starting_after or ending_before', async () => {
  const failures: string[] = [];
  let tried = 0;
  for (const { method, path, op } of operations()) {
    if (method !== 'get') continue;
    const values = pathIds[path]?.() ?? {};
    if ([...path.matchAll(/\{(\w+)\}/g)].some((m) => values[m[1]!] === undefined)) continue;
    for (const cursor of ['starting_after', 'ending_before']) {
      if (!op.parameters?.some((p) => p.in === 'query' && p.name === cursor)) continue;
      // Payment methods are listed per customer.
      const extra = path === '/v1/payment-methods' ? `&customer=${ids.customer}` : '';
      const res = await stack.api(merchant.testKey, `${fill(path, values)}?${cursor}=${MISSING}${extra}`);
      tried += 1;
      const good =
        res.status === 400 &&
        res.body?.error?.code === 'resource_missing' &&
        res.body?.error?.param === cursor;
      if (!good) failures.push(`GET ${path}?${cursor}: ${describeRes(res)}`);
    }
  }
  expect(failures).toEqual([]);
  expect(tried).toBeGreaterThan(30);
});
