import fc from 'fast-check';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { sharedTestStack, type TestMerchant, type TestStack } from '../helpers/stack';
import { setPos } from '../helpers/pos';
import { until } from '../helpers/until';
import {
  BODY_MUTATIONS,
  fieldMutations,
  formEncode,
  invalidValues,
  allowedTypes,
  queryString,
  valid,
  type GenContext,
  type Schema,
} from '../helpers/openapi-fuzz';

// Issue 16.2: every operation of /v1/openapi.json gets requests generated from its schemas, valid
// and invalid, sent to the real API. Nothing answers 5xx but a documented 503 (a terminal that did
// not answer); every 4xx or 503 is the error envelope, with `param` when a field is at fault, and a
// status the operation documents; every 2xx matches the documented response schema. An operation
// the document has and this file has no generator for fails the first test.
//
// FUZZ_RUNS (default 8) valid and as many invalid requests per operation; FUZZ_SEED replays a run.

const RUNS = Number(process.env.FUZZ_RUNS ?? 8);
const SEED = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
const CONCURRENCY = 4;

let stack: TestStack;
let merchant: TestMerchant;
let doc: any;

type PoolName =
  | 'products'
  | 'variants'
  | 'prices'
  | 'customers'
  | 'paymentMethods'
  | 'coupons'
  | 'promotionCodes'
  | 'codes'
  | 'paymentIntents'
  | 'refunds'
  | 'invoices'
  | 'creditNotes'
  | 'disputes'
  | 'subscriptions'
  | 'testClocks'
  | 'channels'
  | 'deliveries'
  | 'sessions'
  | 'paymentLinks'
  | 'events'
  | 'claims'
  | 'settlementRuns'
  | 'deviceCodes'
  | 'posRegisters'
  | 'posStaff'
  | 'posSales'
  | 'posTerminals'
  | 'posZReports'
  | 'carriers'
  | 'shipments'
  | 'platformConnections'
  | 'platforms'
  | 'periods';

const pools: Record<PoolName, string[]> = {
  products: [],
  variants: [],
  prices: [],
  customers: [],
  paymentMethods: [],
  coupons: [],
  promotionCodes: [],
  codes: [],
  paymentIntents: [],
  refunds: [],
  invoices: [],
  creditNotes: [],
  disputes: [],
  subscriptions: [],
  testClocks: [],
  channels: [],
  deliveries: [],
  sessions: [],
  paymentLinks: [],
  events: [],
  claims: [],
  settlementRuns: [],
  deviceCodes: [],
  posRegisters: [],
  posStaff: [],
  posSales: [],
  posTerminals: [],
  posZReports: [],
  carriers: ['dropp', 'posturinn'],
  // Books periods by name (decision 0238): a two-month period and a year.
  periods: ['2026-11', '2026'],
  shipments: [],
  platformConnections: [],
  platforms: ['woocommerce', 'shopify'],
};

/** The pool of each object type the API answers with (`object`), to grow the pools as it runs. */
const POOL_OF_OBJECT: Record<string, PoolName> = {
  product: 'products',
  product_variant: 'variants',
  variant: 'variants',
  price: 'prices',
  customer: 'customers',
  payment_method: 'paymentMethods',
  coupon: 'coupons',
  promotion_code: 'promotionCodes',
  payment_intent: 'paymentIntents',
  refund: 'refunds',
  invoice: 'invoices',
  credit_note: 'creditNotes',
  dispute: 'disputes',
  subscription: 'subscriptions',
  'test_helpers.test_clock': 'testClocks',
  test_clock: 'testClocks',
  notification_channel: 'channels',
  'checkout.session': 'sessions',
  payment_link: 'paymentLinks',
  claim: 'claims',
  'pos.register': 'posRegisters',
  'pos.staff': 'posStaff',
  'pos.sale': 'posSales',
  'pos.terminal': 'posTerminals',
  'pos.z_report': 'posZReports',
  delivery: 'shipments',
  platform_connection: 'platformConnections',
};

/** The pool a body or query field of this name names. */
const POOL_OF_FIELD: Record<string, PoolName> = {
  customer: 'customers',
  price: 'prices',
  default_price: 'prices',
  allowed_prices: 'prices',
  product: 'products',
  products: 'products',
  variant: 'variants',
  coupon: 'coupons',
  payment_method: 'paymentMethods',
  default_payment_method: 'paymentMethods',
  payment_intent: 'paymentIntents',
  invoice: 'invoices',
  subscription: 'subscriptions',
  test_clock: 'testClocks',
  channel: 'channels',
  promotion_code: 'codes',
  code: 'codes',
  device_code: 'deviceCodes',
  register: 'posRegisters',
  staff: 'posStaff',
  checkout_session: 'sessions',
};

interface OpSpec {
  /** The pool each path parameter draws its existing ids from. */
  path?: Record<string, PoolName>;
  /** Query parameters every request of the operation carries (a required filter). */
  fixedQuery?: () => Record<string, string>;
  /** A list: the pool its cursors (starting_after, ending_before) name. */
  cursor?: PoolName;
  /** Runs after the others: it deletes or ends what other operations need. */
  last?: boolean;
}

const p = (pool: PoolName, extra: Record<string, PoolName> = {}) => ({ path: { id: pool, ...extra } });
const list = (cursor: PoolName, spec: OpSpec = {}): OpSpec => ({ ...spec, cursor });

/** One generator per operation of the document: which existing objects its path and query need. */
const GENERATORS: Record<string, OpSpec> = {
  getHealth: {},
  getReady: {},
  getMetrics: {},
  getV1: {},
  getV1OpenapiJson: {},
  getV1SkilJs: {},
  postV1DeviceAuthorize: {},
  getV1DeviceToken: {},
  getV1Events: list('events'),
  getV1EventsId: p('events'),
  postV1EventsIdResend: p('events'),
  postV1NotificationChannels: {},
  getV1NotificationChannels: list('channels'),
  postV1NotificationChannelsTestWebhooks: {},
  getV1NotificationChannelsId: p('channels'),
  patchV1NotificationChannelsId: p('channels'),
  deleteV1NotificationChannelsId: { ...p('channels'), last: true },
  getV1NotificationChannelsIdDeliveries: list('deliveries', p('channels')),
  getV1NotificationChannelsIdDeliveriesDelivery: p('channels', { delivery: 'deliveries' }),
  postV1NotificationChannelsIdDeliveriesDeliveryResend: p('channels', { delivery: 'deliveries' }),
  postV1NotificationChannelsIdRotateSecret: p('channels'),
  getV1Merchant: {},
  patchV1Merchant: {},
  postV1MerchantSubmit: {},
  postV1MerchantRegistryLookup: {},
  getV1MerchantTheme: {},
  patchV1MerchantTheme: {},
  postV1Products: {},
  getV1Products: list('products'),
  getV1ProductsId: p('products'),
  patchV1ProductsId: p('products'),
  deleteV1ProductsId: { ...p('products'), last: true },
  postV1ProductsIdVariants: p('products'),
  getV1ProductsIdVariants: list('variants', p('products')),
  getV1ProductsIdVariantsVariant: p('products', { variant: 'variants' }),
  patchV1ProductsIdVariantsVariant: p('products', { variant: 'variants' }),
  deleteV1ProductsIdVariantsVariant: { ...p('products', { variant: 'variants' }), last: true },
  postV1Prices: {},
  getV1Prices: list('prices'),
  getV1PricesId: p('prices'),
  patchV1PricesId: p('prices'),
  postV1Customers: {},
  getV1Customers: list('customers'),
  getV1CustomersId: p('customers'),
  patchV1CustomersId: p('customers'),
  deleteV1CustomersId: { ...p('customers'), last: true },
  postV1CustomersIdDefaultPaymentMethod: p('customers'),
  postV1Coupons: {},
  getV1Coupons: list('coupons'),
  getV1CouponsId: p('coupons'),
  patchV1CouponsId: p('coupons'),
  deleteV1CouponsId: { ...p('coupons'), last: true },
  postV1PromotionCodes: {},
  getV1PromotionCodes: list('promotionCodes'),
  getV1PromotionCodesId: p('promotionCodes'),
  patchV1PromotionCodesId: p('promotionCodes'),
  postV1CheckoutSessions: {},
  getV1CheckoutSessions: list('sessions'),
  getV1CheckoutSessionsId: p('sessions'),
  postV1TestHelpersCheckoutSessionsIdComplete: p('sessions'),
  postV1PaymentIntents: {},
  getV1PaymentIntents: list('paymentIntents'),
  getV1PaymentIntentsId: p('paymentIntents'),
  postV1PaymentIntentsIdConfirm: p('paymentIntents'),
  postV1PaymentIntentsIdCapture: p('paymentIntents'),
  postV1PaymentIntentsIdCancel: { ...p('paymentIntents'), last: true },
  postV1PaymentIntentsIdRefund: p('paymentIntents'),
  postV1Refunds: {},
  getV1Refunds: list('refunds'),
  getV1RefundsId: p('refunds'),
  getV1Invoices: list('invoices'),
  getV1InvoicesId: p('invoices'),
  getV1InvoicesIdPdf: p('invoices'),
  getV1InvoicesIdUbl: p('invoices'),
  getV1CreditNotes: list('creditNotes'),
  getV1CreditNotesId: p('creditNotes'),
  getV1CreditNotesIdUbl: p('creditNotes'),
  getV1Disputes: list('disputes'),
  getV1DisputesId: p('disputes'),
  postV1DisputesId: p('disputes'),
  postV1DisputesIdClose: p('disputes'),
  postV1PaymentMethods: {},
  getV1PaymentMethods: list('paymentMethods', { fixedQuery: () => ({ customer: pools.customers[0]! }) }),
  getV1PaymentMethodsId: p('paymentMethods'),
  postV1PaymentMethodsIdAttach: p('paymentMethods'),
  postV1PaymentMethodsIdDetach: { ...p('paymentMethods'), last: true },
  postV1Subscriptions: {},
  getV1Subscriptions: list('subscriptions'),
  getV1SubscriptionsId: p('subscriptions'),
  postV1SubscriptionsId: p('subscriptions'),
  deleteV1SubscriptionsId: { ...p('subscriptions'), last: true },
  postV1TestHelpersTestClocks: {},
  getV1TestHelpersTestClocks: list('testClocks'),
  getV1TestHelpersTestClocksId: p('testClocks'),
  deleteV1TestHelpersTestClocksId: { ...p('testClocks'), last: true },
  postV1TestHelpersTestClocksIdAdvance: p('testClocks'),
  postV1BillingPortalSessions: {},
  postV1Claims: {},
  getV1Claims: list('claims'),
  getV1ClaimsId: p('claims'),
  postV1ClaimsId: p('claims'),
  postV1ClaimsIdCancel: { ...p('claims'), last: true },
  postV1TestHelpersClaimsIdPay: p('claims'),
  getV1ClaimsIdCollection: p('claims'),
  getV1ReportsVat: {},
  getV1ReportsVatDocuments: {},
  getV1ReportsVatCsv: {},
  getV1ReportsJournal: {},
  getV1ReportsJournalCsv: {},
  getV1ReportsSettlementCsv: {},
  getV1ReportsChartOfAccounts: {},
  postV1ReportsChartOfAccounts: {},
  // Closing a period ends what later reads of it may change: after the others.
  postV1ReportsPeriodsPeriodClose: { path: { period: 'periods' }, last: true },
  getV1CollectionPolicy: {},
  postV1CollectionPolicy: {},
  // No settlement run exists in this file (runs come from a settlement day over the bank's files):
  // its valid requests name ids that do not exist and are answered 404.
  getV1SettlementRuns: list('settlementRuns'),
  getV1SettlementRunsId: p('settlementRuns'),
  getV1SettlementRunsIdLines: p('settlementRuns'),
  getV1SettlementRunsIdLinesCsv: p('settlementRuns'),
  postV1PaymentLinks: {},
  getV1PaymentLinks: list('paymentLinks'),
  getV1PaymentLinksId: p('paymentLinks'),
  postV1PaymentLinksId: p('paymentLinks'),
  deleteV1PaymentLinksId: { ...p('paymentLinks'), last: true },
  // The point of sale, switched on for this merchant.
  postV1PosDevices: {},
  postV1PosTerminalAnnouncements: {},
  postV1PosRegisters: {},
  getV1PosRegisters: list('posRegisters'),
  getV1PosRegistersId: p('posRegisters'),
  postV1PosRegistersIdPairingCodes: p('posRegisters'),
  getV1PosRegistersIdShift: p('posRegisters'),
  postV1PosRegistersIdShiftOpen: p('posRegisters'),
  postV1PosRegistersIdShiftClose: p('posRegisters'),
  postV1PosRegistersIdDrawerEvents: p('posRegisters'),
  postV1PosRegistersIdSales: p('posRegisters'),
  getV1PosRegistersIdXReport: p('posRegisters'),
  postV1PosRegistersIdZReports: p('posRegisters'),
  postV1PosStaff: {},
  getV1PosStaff: list('posStaff'),
  getV1PosStaffId: p('posStaff'),
  postV1PosStaffId: p('posStaff'),
  getV1PosDevice: {},
  postV1PosSignIn: {},
  postV1PosSignOut: {},
  postV1PosTerminals: {},
  getV1PosTerminals: list('posTerminals'),
  getV1PosTerminalsId: p('posTerminals'),
  getV1PosSales: list('posSales'),
  getV1PosSalesId: p('posSales'),
  getV1PosSalesIdReceipt: p('posSales'),
  postV1PosSalesIdRefunds: p('posSales'),
  getV1PosZReports: list('posZReports'),
  getV1PosZReportsId: p('posZReports'),
  getV1DeliveryCarriers: {},
  postV1DeliveryCarriersId: { path: { id: 'carriers' } },
  getV1DeliveryPickupPoints: {},
  // Deliveries come only from paid sessions with a pickup point, which the fuzz rarely makes: its
  // valid requests mostly name ids that do not exist and are answered 404.
  getV1Deliveries: list('shipments'),
  getV1DeliveriesId: p('shipments'),
  postV1DeliveriesIdCancel: { ...p('shipments'), last: true },
  postV1TestHelpersDeliveriesIdAdvance: p('shipments'),
  postV1PlatformConnections: {},
  getV1PlatformConnections: list('platformConnections'),
  getV1PlatformConnectionsId: p('platformConnections'),
  deleteV1PlatformConnectionsId: { ...p('platformConnections'), last: true },
  // No key and no signature: every request is refused (401), an unknown platform 404.
  postApiV1PlatformWebhook: { path: { platform: 'platforms' } },
};

const ctx: GenContext = {
  pools,
  poolOf: (name) => POOL_OF_FIELD[name],
};

interface Operation {
  operationId: string;
  method: string;
  path: string;
  op: any;
  spec: OpSpec;
}

interface Req {
  op: Operation;
  kind: 'valid' | 'invalid';
  what: string;
  /** The param the error must name (invalid field mutations); '' none; undefined: not checked. */
  param?: string;
  /**
   * Whether the unmutated request passed validation (sent as JSON and not answered 400): only then
   * must the error name the mutated field itself. Otherwise another field the schema cannot hold to
   * a cross-field rule may be named first, and the error need only name some param.
   */
  strictParam?: boolean;
  /** For an invalid request: the statuses that may answer it. */
  statuses?: number[];
  url: string;
  method: string;
  headers: Record<string, string>;
  body?: string | FormData;
  sentBody?: unknown;
}

const card = { number: '4242424242424242', exp_month: 12, exp_year: 2040, cvc: '123' };

async function create(path: string, body: unknown, pool: PoolName, method = 'POST'): Promise<any> {
  const res = await stack.api(merchant.testKey, path, { method, json: body });
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${res.text}`);
  if (res.body?.id) pools[pool].push(res.body.id as string);
  return res.body;
}

beforeAll(async () => {
  // No worker: the workflows the API starts wait in their queue, and no webhook is attempted.
  stack = await sharedTestStack();
  merchant = await stack.merchant();
  doc = (await stack.api(null, '/v1/openapi.json')).body;
  await stack.api(merchant.testKey, '/v1/merchant', { method: 'PATCH', json: { kennitala: '5510730339' } });
  const product = await create('/v1/products', { name: 'Vara', vat_rate: 24 }, 'products');
  await create('/v1/products', { name: 'Áskrift', default_price_data: { unit_amount: 2990 } }, 'products');
  await create(`/v1/products/${product.id}/variants`, { name: 'Stór', unit_amount: 1500 }, 'variants');
  await create('/v1/prices', { product: product.id, unit_amount: 1000 }, 'prices');
  const recurring = await create(
    '/v1/prices',
    { product: product.id, unit_amount: 2990, recurring: { interval: 'month' } },
    'prices',
  );
  const customer = await create('/v1/customers', { name: 'Jóna', kennitala: '1201603389' }, 'customers');
  await create('/v1/customers', { name: 'Siggi', email: 'siggi@example.com' }, 'customers');
  const pm = await create('/v1/payment-methods', { customer: customer.id, card }, 'paymentMethods');
  const coupon = await create('/v1/coupons', { percent_off: 10 }, 'coupons');
  const code = await create('/v1/promotion-codes', { coupon: coupon.id }, 'promotionCodes');
  pools.codes.push(code.code as string);
  const paid = await create('/v1/payment-intents', { amount: 5000, card, confirm: true }, 'paymentIntents');
  await create('/v1/payment-intents', { amount: 5000, customer: customer.id }, 'paymentIntents');
  await create(
    '/v1/payment-intents',
    { amount: 5000, card, confirm: true, capture_method: 'manual' },
    'paymentIntents',
  );
  await create('/v1/refunds', { payment_intent: paid.id, amount: 100 }, 'refunds');
  await create(
    '/v1/subscriptions',
    { customer: customer.id, price: recurring.id, default_payment_method: pm.id, trial_period_days: 7 },
    'subscriptions',
  );
  await create('/v1/test_helpers/test_clocks', { frozen_time: Math.floor(Date.now() / 1000) }, 'testClocks');
  const channel = await create(
    '/v1/notification-channels',
    { type: 'webhook', config: { url: 'http://127.0.0.1:9/hook' }, event_subscriptions: ['*'] },
    'channels',
  );
  await stack.api(merchant.testKey, '/v1/notification-channels/test-webhooks', {
    method: 'POST',
    json: { channel: channel.id },
  });
  const deliveries = await stack.api(merchant.testKey, `/v1/notification-channels/${channel.id}/deliveries`);
  pools.deliveries.push(...(deliveries.body.data as { id: string }[]).map((d) => d.id));
  await create('/v1/checkout/sessions', { amount: 1000 }, 'sessions');
  // A sale gives an invoice, its refund a credit note.
  const sale = await create('/v1/checkout/sessions', { amount: 2500 }, 'sessions');
  const sold = await stack.api(merchant.testKey, `/v1/test_helpers/checkout/sessions/${sale.id}/complete`, {
    method: 'POST',
    json: {},
  });
  await create('/v1/refunds', { payment_intent: sold.body.payment_intent, amount: 500 }, 'refunds');
  const invoices = await stack.api(merchant.testKey, '/v1/invoices');
  pools.invoices.push(...(invoices.body.data as { id: string }[]).map((i) => i.id));
  const notes = await stack.api(merchant.testKey, '/v1/credit-notes');
  pools.creditNotes.push(...(notes.body.data as { id: string }[]).map((n) => n.id));
  // The dispute test cards' payments are disputed by the acquirer (decision 0155), two of them so
  // that accepting one leaves one that still takes evidence.
  for (let i = 0; i < 2; i++)
    await create(
      '/v1/payment-intents',
      { amount: 3000, card: { ...card, number: '4000000000000259' }, confirm: true },
      'paymentIntents',
    );
  const disputed = await until(
    () => stack.api(merchant.testKey, '/v1/disputes'),
    (r) => r.body.data?.length === 2,
    20_000,
  );
  pools.disputes.push(...(disputed.body.data as { id: string }[]).map((d) => d.id));
  await create('/v1/payment-links', { amount: 1000 }, 'paymentLinks');
  await create(
    '/v1/payment-links',
    { mode: 'subscription', items: [{ price: recurring.id }] },
    'paymentLinks',
  );
  await create(
    '/v1/claims',
    {
      customer: customer.id,
      amount: 5000,
      due_date: new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10),
    },
    'claims',
  );
  const device = await stack.api(null, '/v1/device/authorize', {
    method: 'POST',
    json: { client_name: 'fuzz' },
  });
  pools.deviceCodes.push(device.body.device_code as string);
  await setPos(stack, merchant.id, true);
  const register = await create('/v1/pos/registers', { name: 'Kassi' }, 'posRegisters');
  const staff = await create(
    '/v1/pos/staff',
    { name: 'Gunna', role: 'manager', pin: '48151623' },
    'posStaff',
  );
  await stack.api(merchant.testKey, `/v1/pos/registers/${register.id}/shift/open`, {
    method: 'POST',
    json: { opening_float: 10000, staff: staff.id },
  });
  await create(
    `/v1/pos/registers/${register.id}/sales`,
    {
      lines: [{ description: 'Kaffi', unit_amount: 1000, vat_rate: 11, quantity: 1 }],
      payments: [{ method: 'cash', amount: 1000, tendered: 2000 }],
      staff: staff.id,
    },
    'posSales',
  );
  const events = await stack.api(merchant.testKey, '/v1/events?limit=100');
  pools.events.push(...(events.body.data as { id: string }[]).map((e) => e.id));
}, 120_000);

afterAll(async () => {
  await stack.stop();
});

function operations(): Operation[] {
  const out: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, any>>))
    for (const [method, op] of Object.entries(item))
      out.push({
        operationId: op.operationId as string,
        method,
        path,
        op,
        spec: GENERATORS[op.operationId] ?? {},
      });
  return out;
}

test('every operation of the document has a generator, and every generator an operation', () => {
  const ids = operations().map((o) => o.operationId);
  expect(ids.filter((i) => !(i in GENERATORS))).toEqual([]);
  expect(Object.keys(GENERATORS).filter((i) => !ids.includes(i))).toEqual([]);
  for (const o of operations()) {
    const names = [...o.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
    expect({ op: o.operationId, params: names.sort() }).toEqual({
      op: o.operationId,
      params: Object.keys(o.spec.path ?? {}).sort(),
    });
  }
});

// -------------------------------------------------------------------------------------------------

const needsKey = (o: Operation) => o.op.security === undefined || o.op.security.length > 0;
const bodySchema = (o: Operation): Schema | undefined =>
  o.op.requestBody?.content['application/json']?.schema;
const queryParams = (o: Operation): { name: string; required: boolean; schema: Schema }[] =>
  (o.op.parameters ?? []).filter((x: any) => x.in === 'query');

/** A valid query parameter: cursors name objects of the list, `limit` is 1 to 100. */
function validQuery(o: Operation, name: string, schema: Schema): fc.Arbitrary<unknown> {
  if (name === 'limit') return fc.integer({ min: 1, max: 100 });
  if (name === 'starting_after' || name === 'ending_before') {
    const pool = o.spec.cursor ? pools[o.spec.cursor] : [];
    return pool.length ? fc.constantFrom(...pool) : valid(schema, ctx, name);
  }
  return valid(schema, ctx, name);
}

/** A valid request's parts, as an arbitrary. */
function validParts(o: Operation) {
  const path = fc.record(
    Object.fromEntries(
      Object.entries(o.spec.path ?? {}).map(([name, pool]) => [
        name,
        pools[pool].length ? fc.constantFrom(...pools[pool]) : fc.constant(`zz_none_${name}`),
      ]),
    ),
  ) as fc.Arbitrary<Record<string, string>>;
  const query = fc.record(
    Object.fromEntries(queryParams(o).map((q) => [q.name, validQuery(o, q.name, q.schema)])),
    {
      requiredKeys: queryParams(o)
        .filter((q) => q.required)
        .map((q) => q.name),
    },
  ) as fc.Arbitrary<Record<string, unknown>>;
  const schema = bodySchema(o);
  const body = schema
    ? (valid(schema, ctx) as fc.Arbitrary<Record<string, unknown>>)
    : fc.constant(undefined);
  const encoding = fc.constantFrom('json', 'json', 'json', 'json', 'form', 'multipart', 'text');
  return fc.record({ path, query, body, encoding, pick: fc.nat() });
}

function fillPath(template: string, values: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (_m, name: string) => encodeURIComponent(values[name] ?? ''));
}

function request(
  o: Operation,
  parts: { path: Record<string, string>; query: Record<string, unknown>; body: unknown; encoding: string },
  extra: Partial<Req> & { rawBody?: { contentType: string; text: string } } = {},
): Req {
  const query = { ...parts.query, ...(o.spec.fixedQuery?.() ?? {}) };
  const headers: Record<string, string> = {};
  if (needsKey(o)) headers.authorization = `Bearer ${merchant.testKey}`;
  let body: string | FormData | undefined;
  if (extra.rawBody) {
    headers['content-type'] = extra.rawBody.contentType;
    body = extra.rawBody.text;
  } else if (parts.body !== undefined) {
    if (parts.encoding === 'form') {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(formEncode(parts.body)).toString();
    } else if (parts.encoding === 'multipart') {
      const form = new FormData();
      for (const [k, v] of formEncode(parts.body)) form.append(k, v);
      body = form;
    } else {
      headers['content-type'] = parts.encoding === 'text' ? 'text/plain' : 'application/json';
      body = JSON.stringify(parts.body);
    }
  }
  return {
    op: o,
    kind: 'valid',
    what: `valid, ${parts.body === undefined ? 'no body' : parts.encoding}`,
    url: fillPath(o.path, parts.path) + queryString(query),
    method: o.method.toUpperCase(),
    headers,
    ...(body !== undefined && { body }),
    sentBody: extra.rawBody ? extra.rawBody.text : parts.body,
    ...extra,
  };
}

/** An invalid request made from a valid one, by one of the mutations that apply to the operation. */
function invalidRequest(
  o: Operation,
  parts: Parameters<typeof request>[1] & { pick: number },
  strictParam: boolean,
): Req {
  const choices: (() => Req)[] = [];
  const json = { ...parts, encoding: 'json' };
  for (const name of Object.keys(o.spec.path ?? {})) {
    for (const bad of ['zz_nonexistent_0000', 'not an id', '%2e%2e', 'x'.repeat(300)])
      choices.push(() =>
        request(
          o,
          { ...json, path: { ...parts.path, [name]: bad } },
          {
            kind: 'invalid',
            what: `path ${name} = ${bad.slice(0, 20)}`,
            // A period is a name, not an object: one that is not a period is a bad request.
            statuses: o.spec.path?.[name] === 'periods' ? [400] : [404],
          },
        ),
      );
  }
  const fixed = Object.keys(o.spec.fixedQuery?.() ?? {});
  for (const q of queryParams(o).filter((x) => !fixed.includes(x.name))) {
    const bads: unknown[] = invalidValues(q.schema, true).filter((v) => typeof v === 'string');
    if (!(allowedTypes(q.schema)?.has('object') ?? true)) bads.push({ nested: 'x' });
    for (const bad of bads)
      choices.push(() =>
        request(
          o,
          { ...json, query: { ...parts.query, [q.name]: bad } },
          {
            kind: 'invalid',
            what: `query ${q.name} = ${JSON.stringify(bad).slice(0, 30)}`,
            param: q.name,
            statuses: [400],
          },
        ),
      );
  }
  if (queryParams(o).length > 0)
    choices.push(() =>
      request(
        o,
        { ...json, query: { ...parts.query, zz_undeclared: 'x' } },
        {
          kind: 'invalid',
          what: 'query zz_undeclared',
          param: 'zz_undeclared',
          statuses: [400],
        },
      ),
    );
  const schema = bodySchema(o);
  if (schema && parts.body !== undefined) {
    for (const m of fieldMutations(schema, parts.body))
      choices.push(() =>
        request(
          o,
          { ...json, body: m.apply(parts.body as Record<string, unknown>) },
          {
            kind: 'invalid',
            what: `body ${m.what}`,
            param: m.param,
            statuses: [400],
          },
        ),
      );
    for (const m of BODY_MUTATIONS)
      choices.push(() =>
        request(o, json, {
          kind: 'invalid',
          what: `body: ${m.what}`,
          param: '',
          statuses: [400, 415],
          rawBody: { contentType: m.contentType, text: m.raw() },
        }),
      );
  }
  if (needsKey(o))
    choices.push(() => {
      const r = request(o, json, { kind: 'invalid', what: 'an unknown API key', statuses: [401] });
      r.headers.authorization = 'Bearer sk_test_zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz';
      return r;
    });
  if (choices.length === 0)
    // Nothing of this operation can be made invalid (no key, path, query or body): an unknown
    // query parameter is ignored, as every input-less system route does.
    return request(o, { ...json, query: { zz_ignored: 'x' } }, { kind: 'invalid', what: 'an ignored query' });
  const chosen = choices[parts.pick % choices.length]!();
  // A path id that names nothing is a 404, once the rest of the request is valid; while the body
  // itself is refused, that 400 may come first (validation precedes the lookup).
  if (!strictParam && chosen.statuses?.includes(404)) chosen.statuses = [...chosen.statuses, 400];
  return { ...chosen, strictParam };
}

// -------------------------------------------------------------------------------------------------

const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: true });
addFormats(ajv);
const validators = new Map<string, ValidateFunction>();
function validator(key: string, schema: Schema): ValidateFunction {
  let v = validators.get(key);
  if (!v) {
    const { $schema: _ignored, ...rest } = schema;
    v = ajv.compile(rest);
    validators.set(key, v);
  }
  return v;
}

/** A validator's verdict, without narrowing what it looked at. */
const matches = (v: ValidateFunction, data: unknown): boolean => v(data);

const FIELD_CODES = ['parameter_invalid', 'parameter_missing', 'parameter_unknown', 'resource_missing'];

interface Outcome {
  req: Req;
  status: number;
  problem?: string;
  /** The parsed JSON answer, if any. */
  json?: any;
}

let reconnects = 0;

async function send(req: Req): Promise<Outcome> {
  const attempt = () =>
    fetch(stack.url + req.url, {
      method: req.method,
      headers: req.headers,
      ...(req.body !== undefined && { body: req.body }),
    });
  let res: Response;
  try {
    res = await attempt();
  } catch {
    // A kept-alive connection the server closed just as it was reused (a client-side race under a
    // loaded machine) is tried once more on a new one; no answer twice is a failure like a 5xx.
    reconnects += 1;
    try {
      res = await attempt();
    } catch (err) {
      const cause = (err as { cause?: { message?: string } }).cause?.message ?? String(err);
      return { req, status: 0, problem: `no answer: ${cause}` };
    }
  }
  const text = await res.text();
  const status = res.status;
  const o = req.op;
  const fail = (problem: string) => ({ req, status, problem: `${problem}: ${text.slice(0, 300)}` });
  // A 503 the operation documents is an outside party that did not answer (a card terminal at a
  // URL the fuzzer announced for it): an answer, checked as an error below. Any other 5xx is a fault.
  if (status >= 500 && !(status === 503 && o.op.responses['503'])) return fail(`${status}`);
  const documented = o.op.responses[String(status)];
  if (!documented) return fail(`status ${status} is not documented for the operation`);
  const mediaType = Object.keys(documented.content ?? { 'application/json': {} })[0]!;
  if (status < 300) {
    if (req.kind === 'invalid' && req.statuses)
      return fail(`invalid request (${req.what}) answered ${status}`);
    if (!(res.headers.get('content-type') ?? '').startsWith(mediaType))
      return fail(`content-type ${res.headers.get('content-type')} is not the documented ${mediaType}`);
    if (mediaType === 'application/json') {
      const json = JSON.parse(text) as unknown;
      const v = validator(`${o.operationId} ${status}`, documented.content[mediaType].schema as Schema);
      if (!v(json)) return fail(`response does not match its schema: ${ajv.errorsText(v.errors)}`);
      return { req, status, json };
    }
    return { req, status };
  }
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    return fail('a 4xx that is not JSON');
  }
  const envelope = validator('Error', doc.components.schemas.Error as Schema);
  if (!matches(envelope, body)) return fail(`not the error envelope: ${ajv.errorsText(envelope.errors)}`);
  if (FIELD_CODES.includes(body.error.code) && !body.error.param)
    return fail(`${body.error.code} without param`);
  if (req.statuses && !req.statuses.includes(status))
    return fail(`invalid request (${req.what}) answered ${status}, not ${req.statuses.join(' or ')}`);
  // The error names the field, or (a union of object shapes that fails as a whole) an ancestor.
  const named = String(body.error.param);
  if (req.param && !body.error.param) return fail(`invalid request (${req.what}) names no param`);
  if (req.param && req.strictParam && named !== req.param && !req.param.startsWith(`${named}.`))
    return fail(`invalid request (${req.what}) names param ${body.error.param}, not ${req.param}`);
  return { req, status };
}

/** Grows the pools with what the API created, so later operations name it. */
function remember(outcome: Outcome) {
  const json = outcome.json as { object?: string; id?: unknown; device_code?: unknown } | undefined;
  if (!json || outcome.req.method !== 'POST') return;
  if (typeof json.device_code === 'string') pools.deviceCodes.push(json.device_code);
  const pool = POOL_OF_OBJECT[json.object ?? ''];
  if (pool && typeof json.id === 'string' && !pools[pool].includes(json.id)) pools[pool].push(json.id);
}

async function runAll(reqs: Req[]): Promise<Outcome[]> {
  const out: Outcome[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < reqs.length) {
        const req = reqs[next++]!;
        out.push(await send(req));
      }
    }),
  );
  return out;
}

test(
  `fuzz: ${RUNS} valid and ${RUNS} invalid requests per operation; no 5xx, envelopes, documented statuses, response schemas`,
  async () => {
    // The seed is how a failing run is replayed.
    console.log(
      `API fuzz: seed ${SEED} (FUZZ_SEED=${SEED} replays), ${RUNS} valid + ${RUNS} invalid per operation`,
    );
    const ops = operations();
    const ordered = [...ops.filter((o) => !o.spec.last), ...ops.filter((o) => o.spec.last)];
    const outcomes: Outcome[] = [];
    for (const [i, o] of ordered.entries()) {
      const samples = fc.sample(validParts(o), { seed: SEED + i, numRuns: RUNS });
      // Each sample is sent as it is, then once more with one mutation.
      const valids = samples.map((s) => request(o, s));
      const validResults = await runAll(valids);
      const statusOf = new Map(validResults.map((r) => [r.req, r.status]));
      const invalids = samples.map((s, k) =>
        invalidRequest(o, s, s.encoding === 'json' && statusOf.get(valids[k]!) !== 400),
      );
      const results = [...validResults, ...(await runAll(invalids))];
      outcomes.push(...results);
      results.forEach(remember);
    }
    const failures = outcomes.filter((o) => o.problem);
    const count = (kind: string) => outcomes.filter((o) => o.req.kind === kind).length;
    const byStatus = new Map<number, number>();
    for (const o of outcomes) byStatus.set(o.status, (byStatus.get(o.status) ?? 0) + 1);
    // The figures the issue asks the run to report.
    console.log(
      `API fuzz: ${outcomes.length} requests to ${ops.length} operations (${count('valid')} valid, ${count('invalid')} invalid); ` +
        `${outcomes.filter((o) => o.status >= 500).length} × 5xx; ${reconnects} sent again on a new connection; by status ${JSON.stringify(Object.fromEntries([...byStatus].sort()))}`,
    );
    expect(
      failures.map(
        (f) =>
          `${f.req.method} ${f.req.url.slice(0, 200)} [${f.req.what}] body=${JSON.stringify(f.req.sentBody ?? null).slice(0, 300)} → ${f.problem}`,
      ),
    ).toEqual([]);
    expect(count('valid')).toBe(RUNS * ops.length);
    expect(count('invalid')).toBe(RUNS * ops.length);
  },
  Math.max(600_000, RUNS * 20_000),
);
