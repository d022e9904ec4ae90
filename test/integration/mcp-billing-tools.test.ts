import { sharedTestStack, type TestMerchant, type TestStack } from '../helpers/stack';
import { fails, mcpAgents, ok } from '../helpers/mcp';
import { until } from '../helpers/until';
import { createOperator } from '../helpers/accounts';

/**
 * The MCP tools of the catalog, subscriptions, kröfur and invoices (decision 0202), through the
 * SDK's own MCP client over Streamable HTTP against the running API and worker: each calls the
 * service the API's route calls, and what it did is checked over the API.
 */

let stack: TestStack;

beforeAll(async () => {
  stack = await sharedTestStack();
});
afterAll(async () => {
  await stack?.stop();
});

const agentFor = mcpAgents(() => stack.url);

/** Today plus `n` days, YYYY-MM-DD. */
const day = (n: number) => new Date(Date.now() + n * 86_400_000).toISOString().slice(0, 10);

/** A merchant that sells (seller details for its invoices) and issues kröfur under its kennitala. */
async function seller(): Promise<TestMerchant> {
  const m = await stack.merchant();
  const res = await stack.api(m.testKey, '/v1/merchant', {
    method: 'PATCH',
    json: {
      name: 'Kaffibrennslan ehf.',
      merchant_type: 'company',
      kennitala: '5501692829',
      legal_address: { street: 'Laugavegur 1', city: 'Reykjavík', postalCode: '101', country: 'IS' },
      bank_account: '0133-26-012345',
      vat_number: '123456',
    },
  });
  expect(res.status).toBe(200);
  return m;
}

const CONFIRMED = [
  'create_subscription',
  'update_subscription',
  'cancel_subscription',
  'create_claim',
  'cancel_claim',
];
const WRITES = ['create_product', 'update_product', 'create_price', 'update_price', ...CONFIRMED];
const READS = [
  'list_subscriptions',
  'get_subscription',
  'list_claims',
  'get_claim',
  'list_invoices',
  'get_invoice',
  'list_products',
  'get_product',
  'list_prices',
  'get_price',
];

test('the client lists the new tools: schemas, annotations, idempotency, dry run and confirmation', async () => {
  const m = await stack.merchant();
  const { tools } = await (await agentFor(m.testKey)).listTools();
  const byName = new Map(tools.map((t) => [t.name, t]));
  for (const name of [...WRITES, ...READS]) expect(byName.has(name)).toBe(true);
  for (const name of WRITES) {
    const t = byName.get(name)!;
    expect(t.annotations).toMatchObject({ readOnlyHint: false, idempotentHint: true });
    expect(t.inputSchema.properties).toHaveProperty('idempotency_key');
    expect(t.inputSchema.properties).toHaveProperty('dry_run');
    expect(t.description!.length).toBeGreaterThan(150);
    // A tool that needs confirmation with a live key takes the token and says so.
    if (CONFIRMED.includes(name)) {
      expect(t.inputSchema.properties).toHaveProperty('confirmation_token');
      expect(t.description).toContain('confirmation_token');
      expect(t.description).toMatch(/live key/);
    } else {
      expect(t.inputSchema.properties).not.toHaveProperty('confirmation_token');
      expect(t.description).toContain('Moves no money');
    }
  }
  for (const name of READS) expect(byName.get(name)!.annotations).toMatchObject({ readOnlyHint: true });
  for (const name of ['cancel_subscription', 'cancel_claim', 'update_subscription'])
    expect(byName.get(name)!.annotations).toMatchObject({ destructiveHint: true });
  // The API's field names: the subscription tool takes what POST /v1/subscriptions takes.
  expect(Object.keys(byName.get('create_subscription')!.inputSchema.properties!)).toEqual(
    expect.arrayContaining(['customer', 'price', 'quantity', 'default_payment_method', 'trial_period_days']),
  );
  expect(byName.get('create_subscription')!.inputSchema.required).toEqual(
    expect.arrayContaining(['customer', 'price']),
  );
});

test('test key: product → price → subscription (its first invoice) → update → cancel, end to end', async () => {
  const m = await seller();
  const agent = await agentFor(m.testKey);
  const api = (path: string) => stack.api(m.testKey, path);

  // A dry run shows the product and keeps nothing.
  const dry = await ok(agent, 'create_product', { name: 'Kaffiáskrift', vat_rate: 11, dry_run: true });
  expect(dry).toMatchObject({ dry_run: true, result: { object: 'product', name: 'Kaffiáskrift' } });
  expect((await api('/v1/products')).body.data).toHaveLength(0);

  const product = await ok(agent, 'create_product', {
    name: 'Kaffiáskrift',
    vat_rate: 11,
    idempotency_key: 'product-1',
  });
  expect(product).toMatchObject({ object: 'product', name: 'Kaffiáskrift', vat_rate: 11 });
  // The same key again: the same product, no second one.
  expect(
    (await ok(agent, 'create_product', { name: 'Kaffiáskrift', vat_rate: 11, idempotency_key: 'product-1' }))
      .id,
  ).toBe(product.id);
  expect((await api('/v1/products')).body.data).toHaveLength(1);
  const renamed = await ok(agent, 'update_product', {
    id: product.id,
    description: 'Baunir í hverjum mánuði',
  });
  expect(renamed).toMatchObject({ id: product.id, description: 'Baunir í hverjum mánuði' });
  expect((await api(`/v1/products/${product.id}`)).body.description).toBe('Baunir í hverjum mánuði');

  const price = await ok(agent, 'create_price', {
    product: product.id,
    unit_amount: 4990,
    recurring: { interval: 'month' },
  });
  expect(price).toMatchObject({
    object: 'price',
    product: product.id,
    unit_amount: 4990,
    type: 'recurring',
    recurring: { interval: 'month', interval_count: 1 },
  });
  expect(await ok(agent, 'update_price', { id: price.id, nickname: 'Mánaðarlega' })).toMatchObject({
    id: price.id,
    nickname: 'Mánaðarlega',
    unit_amount: 4990,
  });
  expect((await api(`/v1/prices/${price.id}`)).body.nickname).toBe('Mánaðarlega');
  expect((await ok(agent, 'get_price', { id: price.id })).nickname).toBe('Mánaðarlega');

  const customer = await ok(agent, 'create_customer', {
    name: 'Jón Jónsson',
    email: 'jon@example.is',
    kennitala: '0101302989',
  });
  const card = await stack.api(m.testKey, '/v1/payment-methods', {
    method: 'POST',
    json: {
      card: { number: '4242424242424242', exp_month: 12, exp_year: 2040, cvc: '123' },
      customer: customer.id,
    },
  });
  expect(card.status).toBe(200);
  const subscribe = { customer: customer.id, price: price.id, default_payment_method: card.body.id };

  // A test key needs no confirmation; the dry run checks and charges nothing.
  const drySub = await ok(agent, 'create_subscription', { ...subscribe, dry_run: true });
  expect(drySub).toMatchObject({
    dry_run: true,
    result: { object: 'subscription', customer: customer.id, price: price.id },
  });
  expect((await api('/v1/subscriptions')).body.data).toHaveLength(0);
  const sub = await ok(agent, 'create_subscription', subscribe);
  expect(sub).toMatchObject({ object: 'subscription', customer: customer.id, price: price.id, quantity: 1 });
  const active = await until(
    () => ok(agent, 'get_subscription', { id: sub.id }),
    (s) => s.status === 'active',
  );
  expect(active.id).toBe(sub.id);
  expect((await api(`/v1/subscriptions/${sub.id}`)).body.status).toBe('active');
  expect((await ok(agent, 'list_subscriptions', { status: 'active' })).data.map((s: any) => s.id)).toEqual([
    sub.id,
  ]);

  // The first period's charge issued an invoice: found through the tools by its subscription.
  const invoices = await until(
    () => ok(agent, 'list_invoices', { subscription: sub.id }),
    (l) => l.data.length === 1,
  );
  const [listed] = invoices.data;
  expect(listed).toMatchObject({
    object: 'invoice',
    subscription: sub.id,
    customer: customer.id,
    total: 4990,
  });
  const invoice = await ok(agent, 'get_invoice', { id: listed.id });
  expect(invoice).toEqual(listed);
  expect(invoice.lines).toEqual([expect.objectContaining({ quantity: 1, unit_amount: 4990, vat_rate: 11 })]);
  const charge = (await api(`/v1/payment-intents/${invoice.payment_intent}`)).body;
  expect(charge).toMatchObject({ status: 'succeeded', amount: 4990, subscription: sub.id });
  expect((await api(`/v1/invoices/${invoice.id}`)).body).toEqual(invoice);

  const updated = await ok(agent, 'update_subscription', {
    id: sub.id,
    quantity: 2,
    metadata: { sæti: '2' },
  });
  expect(updated).toMatchObject({ id: sub.id, quantity: 2, metadata: { sæti: '2' } });
  expect((await api(`/v1/subscriptions/${sub.id}`)).body).toMatchObject({ quantity: 2, status: 'active' });

  // The dry run of a cancel shows it canceled and leaves it active.
  const dryCancel = await ok(agent, 'cancel_subscription', { id: sub.id, dry_run: true });
  expect(dryCancel).toMatchObject({ dry_run: true, result: { id: sub.id, status: 'canceled' } });
  expect((await api(`/v1/subscriptions/${sub.id}`)).body.status).toBe('active');

  const canceled = await ok(agent, 'cancel_subscription', {
    id: sub.id,
    cancellation_reason: 'Flutti til útlanda',
  });
  expect(canceled).toMatchObject({
    id: sub.id,
    status: 'canceled',
    cancellation_details: { reason: 'Flutti til útlanda' },
  });
  expect((await api(`/v1/subscriptions/${sub.id}`)).body.status).toBe('canceled');
  // A canceled subscription cannot be canceled again: the service's refusal, naming the id.
  expect(await fails(agent, 'cancel_subscription', { id: sub.id, idempotency_key: 'again' })).toMatchObject({
    type: 'invalid_request_error',
    param: 'id',
  });
});

test('test key: a krafa is created, read, listed and cancelled through the tools', async () => {
  const m = await seller();
  const agent = await agentFor(m.testKey);
  const claim = {
    payer_kennitala: '1201603389',
    amount: 12_500,
    due_date: day(20),
    description: 'Reikningur fyrir nóvember',
  };
  const dry = await ok(agent, 'create_claim', { ...claim, dry_run: true });
  expect(dry).toMatchObject({
    dry_run: true,
    result: { object: 'claim', amount: 12_500, status: 'pending' },
  });
  expect((await stack.api(m.testKey, '/v1/claims')).body.data).toHaveLength(0);

  const created = await ok(agent, 'create_claim', claim);
  expect(created).toMatchObject({
    object: 'claim',
    status: 'pending',
    amount: 12_500,
    payer_kennitala: '1201603389',
    description: 'Reikningur fyrir nóvember',
  });
  expect(await ok(agent, 'get_claim', { id: created.id })).toEqual(created);
  const listed = await ok(agent, 'list_claims', { payer_kennitala: '1201603389', status: 'pending' });
  expect(listed.data.map((c: any) => c.id)).toEqual([created.id]);
  expect((await stack.api(m.testKey, `/v1/claims/${created.id}`)).body).toEqual(created);

  const dryCancel = await ok(agent, 'cancel_claim', { id: created.id, dry_run: true });
  expect(dryCancel).toMatchObject({ dry_run: true, result: { id: created.id, status: 'pending' } });
  const cancelled = await ok(agent, 'cancel_claim', { id: created.id });
  expect(cancelled).toMatchObject({ id: created.id, status: 'cancelled' });
  expect((await stack.api(m.testKey, `/v1/claims/${created.id}`)).body.status).toBe('cancelled');
});

test('live key: a subscription is created, changed and cancelled only with the confirmation token', async () => {
  const m = await stack.merchant();
  const agent = await agentFor(m.liveKey);
  const live = (path: string) => stack.api(m.liveKey, path);
  const customer = await stack.api(m.liveKey, '/v1/customers', {
    method: 'POST',
    json: { name: 'Lifandi viðskiptavinur', email: 'live@example.is' },
  });
  expect(customer.status).toBe(200);
  // The catalog moves no money: no confirmation with a live key either.
  const product = await ok(agent, 'create_product', { name: 'Lifandi áskrift' });
  expect(product.livemode).toBe(true);
  const price = await ok(agent, 'create_price', {
    product: product.id,
    unit_amount: 3990,
    recurring: { interval: 'month' },
  });
  expect(price).toMatchObject({ object: 'price', livemode: true });

  // A trial: no card needed, and a live merchant has no card acquirer yet.
  const subscribe = { customer: customer.body.id, price: price.id, trial_period_days: 14 };
  const ask = await ok(agent, 'create_subscription', subscribe);
  expect(ask).toMatchObject({
    object: 'confirmation_request',
    status: 'confirmation_required',
    tool: 'create_subscription',
    object_id: customer.body.id,
    amount: 3990,
    preview: { object: 'subscription', status: 'trialing', price: price.id },
    confirmation_token: expect.stringMatching(/^rfc_/),
  });
  expect(ask.message).toContain('3990 ISK every month');
  expect((await live('/v1/subscriptions')).body.data).toHaveLength(0);

  const sub = await ok(agent, 'create_subscription', {
    ...subscribe,
    confirmation_token: ask.confirmation_token,
  });
  expect(sub).toMatchObject({ object: 'subscription', livemode: true, status: 'trialing' });
  // The token again, under another idempotency key: the same subscription, not a second one.
  const again = await ok(agent, 'create_subscription', {
    ...subscribe,
    confirmation_token: ask.confirmation_token,
    idempotency_key: 'another-key',
  });
  expect(again.id).toBe(sub.id);
  expect((await live('/v1/subscriptions')).body.data.map((s: any) => s.id)).toEqual([sub.id]);

  // Metadata changes no money: done at once. Ending it at the period end asks first.
  expect(await ok(agent, 'update_subscription', { id: sub.id, metadata: { uppruni: 'mcp' } })).toMatchObject({
    id: sub.id,
    metadata: { uppruni: 'mcp' },
  });
  const askEnd = await ok(agent, 'update_subscription', { id: sub.id, cancel_at_period_end: true });
  expect(askEnd).toMatchObject({ status: 'confirmation_required', object_id: sub.id });
  expect((await live(`/v1/subscriptions/${sub.id}`)).body.cancel_at_period_end).toBe(false);

  // Cancelling: first a confirmation request, and the subscription is untouched.
  const askCancel = await ok(agent, 'cancel_subscription', { id: sub.id });
  expect(askCancel).toMatchObject({
    object: 'confirmation_request',
    status: 'confirmation_required',
    tool: 'cancel_subscription',
    object_id: sub.id,
    amount: 3990,
    preview: { id: sub.id, status: 'canceled' },
  });
  expect(askCancel.message).toContain(sub.id);
  expect((await live(`/v1/subscriptions/${sub.id}`)).body).toMatchObject({
    status: 'trialing',
    canceled_at: null,
  });
  // Another call's token does not confirm this one, and changes nothing.
  expect(
    await fails(agent, 'cancel_subscription', { id: sub.id, confirmation_token: askEnd.confirmation_token }),
  ).toMatchObject({ code: 'confirmation_token_mismatch', param: 'confirmation_token' });
  expect(
    await fails(agent, 'cancel_subscription', {
      id: sub.id,
      cancellation_reason: 'other arguments',
      confirmation_token: askCancel.confirmation_token,
    }),
  ).toMatchObject({ code: 'confirmation_token_mismatch', param: 'confirmation_token' });
  expect((await live(`/v1/subscriptions/${sub.id}`)).body.status).toBe('trialing');

  const canceled = await ok(agent, 'cancel_subscription', {
    id: sub.id,
    confirmation_token: askCancel.confirmation_token,
  });
  expect(canceled).toMatchObject({ id: sub.id, status: 'canceled' });
  expect((await live(`/v1/subscriptions/${sub.id}`)).body.status).toBe('canceled');
});

/** A merchant approved for live kröfur: profile, submission, approval, the claims agreement. */
async function liveClaimant(): Promise<TestMerchant> {
  const m = await stack.merchant('Lifandi kröfur ehf.');
  const profile = await stack.api(m.testKey, '/v1/merchant', {
    method: 'PATCH',
    json: {
      merchant_type: 'company',
      kennitala: '4710080280',
      phone: '+354 410 4000',
      business_description: 'Wool',
      bank_account: '0133-26-012345',
    },
  });
  expect(profile.status).toBe(200);
  expect((await stack.api(m.testKey, '/v1/merchant/submit', { method: 'POST' })).status).toBe(200);
  const operator = await createOperator(stack.knex);
  for (const step of ['approve', 'claims-agreement/sign']) {
    const r = await stack.api(operator.token, `/v1/operator/merchants/${m.id}/${step}`, {
      method: 'POST',
      json: {},
    });
    expect(r.status).toBe(200);
  }
  return m;
}

test('live key: a krafa is created and cancelled only with the confirmation token', async () => {
  const m = await liveClaimant();
  const agent = await agentFor(m.liveKey);
  const claims = async () => (await stack.api(m.liveKey, '/v1/claims')).body.data as any[];
  const claim = { payer_kennitala: '1201603389', amount: 8_000, notice_fee: 150, due_date: day(30) };

  const ask = await ok(agent, 'create_claim', claim);
  expect(ask).toMatchObject({
    object: 'confirmation_request',
    status: 'confirmation_required',
    tool: 'create_claim',
    amount: 8_000,
    preview: { object: 'claim', livemode: true, status: 'pending', amount: 8_000 },
  });
  expect(ask.message).toContain('1201603389');
  expect(await claims()).toEqual([]);

  const created = await ok(agent, 'create_claim', { ...claim, confirmation_token: ask.confirmation_token });
  expect(created).toMatchObject({ object: 'claim', livemode: true, status: 'pending', amount: 8_000 });
  expect((await claims()).map((c) => c.id)).toEqual([created.id]);
  // The test key sees none of it.
  expect((await stack.api(m.testKey, '/v1/claims')).body.data).toEqual([]);

  const askCancel = await ok(agent, 'cancel_claim', { id: created.id });
  expect(askCancel).toMatchObject({
    status: 'confirmation_required',
    tool: 'cancel_claim',
    object_id: created.id,
    amount: 8_000,
    preview: { id: created.id, status: 'pending' },
  });
  expect((await stack.api(m.liveKey, `/v1/claims/${created.id}`)).body.status).toBe('pending');
  const cancelled = await ok(agent, 'cancel_claim', {
    id: created.id,
    confirmation_token: askCancel.confirmation_token,
  });
  expect(cancelled).toMatchObject({ id: created.id, status: 'cancelled' });
  expect((await stack.api(m.liveKey, `/v1/claims/${created.id}`)).body.status).toBe('cancelled');
});

test('bad input to the new tools is a tool error naming the param, and changes nothing', async () => {
  const m = await seller();
  const agent = await agentFor(m.testKey);
  const product = await ok(agent, 'create_product', { name: 'Vara' });
  const cases: [string, Record<string, unknown>, Record<string, unknown>][] = [
    ['create_product', { name: 'Vara', colour: 'red' }, { code: 'parameter_unknown', param: 'colour' }],
    ['create_product', { name: 'Vara', vat_rate: 7 }, { param: 'vat_rate' }],
    ['create_price', { product: product.id, unit_amount: -5 }, { param: 'unit_amount' }],
    [
      'create_price',
      { product: 'prod_nope', unit_amount: 5 },
      { code: 'resource_missing', param: 'product' },
    ],
    ['update_price', { unit_amount: 5 }, { code: 'parameter_missing', param: 'id' }],
    ['create_subscription', { customer: 'cus_nope' }, { code: 'parameter_missing', param: 'price' }],
    ['create_subscription', { customer: 'cus_nope', price: 'price_nope' }, { param: 'customer' }],
    ['update_subscription', { id: 'sub_nope', quantity: 0 }, { param: 'quantity' }],
    ['cancel_subscription', { id: 'sub_nope' }, { code: 'resource_missing' }],
    [
      'create_claim',
      { payer_kennitala: '1201603389', amount: 1000, due_date: '2026-13-45' },
      { param: 'due_date' },
    ],
    ['create_claim', { payer_kennitala: '1201603389', due_date: day(5) }, { param: 'amount' }],
    ['cancel_claim', {}, { code: 'parameter_missing', param: 'id' }],
    ['list_claims', { status: 'lost' }, { param: 'status' }],
    ['list_invoices', { limit: 500 }, { param: 'limit' }],
    ['get_invoice', { id: 'in_nope' }, { code: 'resource_missing' }],
  ];
  for (const [tool, args, error] of cases) {
    expect([tool, await fails(agent, tool, args)]).toEqual([
      tool,
      expect.objectContaining({ type: 'invalid_request_error', ...error }),
    ]);
  }
  for (const path of ['/v1/prices', '/v1/subscriptions', '/v1/claims'])
    expect((await stack.api(m.testKey, path)).body.data).toHaveLength(0);
  expect((await stack.api(m.testKey, '/v1/products')).body.data).toHaveLength(1);
});
