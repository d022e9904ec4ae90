import { sharedTestStack, type TestStack } from '../helpers/stack';
import { connectMcp, fails, mcpAgents, ok } from '../helpers/mcp';

/**
 * Issue 18 (MCP server at /mcp), done-means 2 and 3, with the SDK's own MCP client over Streamable
 * HTTP against the running API and worker. Done-means 1 (the hosted checkout) is in test/e2e/mcp.test.ts.
 */

let stack: TestStack;

beforeAll(async () => {
  stack = await sharedTestStack();
});
afterAll(async () => {
  await stack?.stop();
});

const agentFor = mcpAgents(() => stack.url);

/** A JSON-RPC initialize, as the first message any MCP client sends. */
function initialize(headers: Record<string, string>) {
  return fetch(`${stack.url}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    }),
  });
}

describe('done-means 2: keys', () => {
  test('a missing or wrong key gets 401; a good key connects', async () => {
    const m = await stack.merchant();
    const wrong: Record<string, string>[] = [
      {},
      { authorization: 'Bearer sk_test_0000000000000000000000000000000000000000' },
      { authorization: 'Bearer nonsense' },
      { authorization: 'Basic abc' },
      { 'x-api-key': 'sk_live_0000000000000000000000000000000000000000' },
    ];
    for (const headers of wrong) {
      const res = await initialize(headers);
      expect(res.status).toBe(401);
      expect(((await res.json()) as any).error).toMatchObject({ type: 'authentication_error' });
    }
    // The SDK client fails to connect with the HTTP status and the API's error.
    await expect(connectMcp(stack.url, null)).rejects.toMatchObject({
      code: 401,
      message: expect.stringContaining('authentication_error'),
    });
    await expect(connectMcp(stack.url, `${m.testKey.slice(0, -4)}zzzz`)).rejects.toMatchObject({
      code: 401,
      message: expect.stringContaining('authentication_error'),
    });
    expect((await initialize({ authorization: `Bearer ${m.testKey}` })).status).toBe(200);
    expect((await initialize({ 'x-api-key': m.liveKey })).status).toBe(200);
  });

  test('a test key never sees live customers, products, prices or links through any tool', async () => {
    const m = await stack.merchant();
    const live = (path: string, json: unknown) => stack.api(m.liveKey, path, { method: 'POST', json });
    const customer = await live('/v1/customers', {
      name: 'Lifandi viðskiptavinur',
      email: 'live@example.is',
    });
    expect(customer.status).toBe(200);
    const product = await live('/v1/products', {
      name: 'Lifandi vara',
      default_price_data: { unit_amount: 7000 },
    });
    expect(product.status).toBe(200);
    const liveAgent = await agentFor(m.liveKey);
    const link = await ok(liveAgent, 'create_payment_link', {
      items: [{ price: product.body.default_price }],
      idempotency_key: 'live-link',
    });
    const liveIds = [customer.body.id, product.body.id, product.body.default_price, link.id];
    // The live key sees them through the tools.
    expect((await ok(liveAgent, 'get_customer', { id: customer.body.id })).id).toBe(customer.body.id);
    expect((await ok(liveAgent, 'list_products', {})).data.map((p: any) => p.id)).toContain(product.body.id);

    // The test key: some objects of its own, then every read tool, none showing a live object.
    const agent = await agentFor(m.testKey);
    await ok(agent, 'create_customer', { name: 'Prófun', idempotency_key: 'c1' });
    const testProduct = await stack.api(m.testKey, '/v1/products', {
      method: 'POST',
      json: { name: 'Prófunarvara', default_price_data: { unit_amount: 100 } },
    });
    const reads: [string, Record<string, unknown>][] = [
      ['list_customers', {}],
      ['list_customers', { email: 'live@example.is' }],
      ['list_products', {}],
      ['list_prices', {}],
      ['list_prices', { product: testProduct.body.id }],
      ['list_payment_intents', {}],
      ['list_payment_links', {}],
      ['list_events', {}],
      ['list_settlement_runs', {}],
      ['list_subscriptions', {}],
      ['list_claims', {}],
      ['list_invoices', {}],
    ];
    const { tools } = await agent.listTools();
    const readTools = tools.filter((t) => t.annotations?.readOnlyHint).map((t) => t.name);
    for (const name of readTools.filter((n) => n.startsWith('list_'))) {
      expect(reads.map(([n]) => n)).toContain(name);
    }
    for (const [name, args] of reads) {
      const text = JSON.stringify(await ok(agent, name, args));
      for (const id of liveIds) expect(text).not.toContain(id);
    }
    for (const [name, id] of [
      ['get_customer', customer.body.id],
      ['get_product', product.body.id],
      ['get_price', product.body.default_price],
      ['get_payment_link', link.id],
    ] as const) {
      expect(await fails(agent, name, { id })).toMatchObject({
        type: 'invalid_request_error',
        code: 'resource_missing',
      });
    }
    // Nor can a test key's writes reach them.
    expect(
      await fails(agent, 'create_checkout_session', { amount: 1000, customer: customer.body.id }),
    ).toMatchObject({ code: 'resource_missing', param: 'customer' });
    expect(
      await fails(agent, 'create_payment_link', { items: [{ price: product.body.default_price }] }),
    ).toMatchObject({ code: 'resource_missing', param: 'items.0.price' });
    // And the live key sees none of the test key's.
    const liveCustomers = await ok(liveAgent, 'list_customers', {});
    expect(liveCustomers.data.map((c: any) => c.id)).toEqual([customer.body.id]);
  });
});

/** A paid test payment made through the API with the success card. */
async function paidIntent(key: string, amount: number): Promise<string> {
  const r = await stack.api(key, '/v1/payment-intents', {
    method: 'POST',
    json: {
      amount,
      confirm: true,
      card: { number: '4242424242424242', exp_month: 12, exp_year: 2034, cvc: '123' },
    },
  });
  expect(r.body).toMatchObject({ status: 'succeeded' });
  return r.body.id as string;
}

describe('done-means 3: agent safety', () => {
  test('read tools are annotated read-only, refunds and cancels destructive, writes idempotent', async () => {
    const m = await stack.merchant();
    const { tools } = await (await agentFor(m.testKey)).listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    const writes = [
      'create_checkout_session',
      'create_payment_link',
      'create_customer',
      'refund_payment',
      'create_product',
      'update_product',
      'create_price',
      'update_price',
      'create_subscription',
      'update_subscription',
      'cancel_subscription',
      'create_claim',
      'cancel_claim',
    ];
    const destructive = ['refund_payment', 'update_subscription', 'cancel_subscription', 'cancel_claim'];
    for (const t of tools) {
      if (writes.includes(t.name)) {
        expect(t.annotations).toMatchObject({ readOnlyHint: false, idempotentHint: true });
        expect(t.inputSchema.properties).toHaveProperty('idempotency_key');
        expect(t.inputSchema.properties).toHaveProperty('dry_run');
      } else {
        expect(t.name).toMatch(/^(get|list)_/);
        expect(t.annotations).toMatchObject({ readOnlyHint: true });
      }
    }
    for (const w of writes) expect(byName.has(w)).toBe(true);
    for (const w of destructive) expect(byName.get(w)!.annotations).toMatchObject({ destructiveHint: true });
    for (const w of writes.filter((n) => !destructive.includes(n)))
      expect(byName.get(w)!.annotations).toMatchObject({ destructiveHint: false });
  });

  test('dry_run changes nothing and shows what the call would do', async () => {
    const m = await stack.merchant();
    const agent = await agentFor(m.testKey);
    const pi = await paidIntent(m.testKey, 3000);
    const counts = async () => {
      const rows = await Promise.all(
        [
          '/v1/customers?limit=100',
          '/v1/checkout/sessions?limit=100',
          '/v1/payment-links?limit=100',
          '/v1/refunds?limit=100',
          '/v1/events?limit=100',
        ].map((p) => stack.api(m.testKey, p)),
      );
      const intent = await stack.api(m.testKey, `/v1/payment-intents/${pi}`);
      const keys = await stack
        .knex('idempotency_keys')
        .where({ merchant_id: m.id })
        .count<{ count: string }[]>();
      return [...rows.map((r) => r.body.data.length), intent.body.amount_refunded, Number(keys[0]!.count)];
    };
    const before = await counts();

    const customer = await ok(agent, 'create_customer', {
      name: 'Jón',
      email: 'jon@example.is',
      dry_run: true,
    });
    expect(customer).toMatchObject({ dry_run: true, result: { object: 'customer', name: 'Jón' } });
    const session = await ok(agent, 'create_checkout_session', { amount: 1200, dry_run: true });
    expect(session).toMatchObject({ dry_run: true, result: { object: 'checkout.session', amount: 1200 } });
    const link = await ok(agent, 'create_payment_link', { amount: 800, dry_run: true });
    expect(link).toMatchObject({ dry_run: true, result: { object: 'payment_link' } });
    const refund = await ok(agent, 'refund_payment', { payment_intent: pi, amount: 500, dry_run: true });
    expect(refund).toMatchObject({
      dry_run: true,
      object: 'refund_preview',
      payment_intent: pi,
      amount: 500,
    });
    // A dry run still checks what the real call would check.
    expect(
      await fails(agent, 'refund_payment', { payment_intent: pi, amount: 3001, dry_run: true }),
    ).toMatchObject({ code: 'amount_too_large', param: 'amount' });
    expect(
      await fails(agent, 'create_checkout_session', { customer: 'cus_nope', amount: 5, dry_run: true }),
    ).toMatchObject({ code: 'resource_missing', param: 'customer' });

    expect(await counts()).toEqual(before);
  });

  test('refunds over the daily per-key limits are refused and change nothing', async () => {
    const m = await stack.merchant();
    const setting = await stack.api(m.testKey, '/v1/merchant', {
      method: 'PATCH',
      json: { mcp: { daily_refund_count: 2, daily_refund_amount: 2500 } },
    });
    expect(setting.status).toBe(200);
    expect(setting.body.mcp).toMatchObject({ daily_refund_count: 2, daily_refund_amount: 2500 });
    const agent = await agentFor(m.testKey);
    const [a, b, c] = [
      await paidIntent(m.testKey, 5000),
      await paidIntent(m.testKey, 5000),
      await paidIntent(m.testKey, 5000),
    ];

    await ok(agent, 'refund_payment', { payment_intent: a, amount: 1000 });
    // 1000 + 2000 is over 2500 ISK a day.
    const overAmount = await fails(agent, 'refund_payment', { payment_intent: b, amount: 2000 });
    expect(overAmount).toMatchObject({ code: 'refund_limit_exceeded', param: 'amount' });
    await ok(agent, 'refund_payment', { payment_intent: b, amount: 1500 });
    // A third refund today is over the count, whatever its amount.
    expect(await fails(agent, 'refund_payment', { payment_intent: c, amount: 1 })).toMatchObject({
      code: 'refund_limit_exceeded',
    });
    // Refused means nothing moved.
    expect((await stack.api(m.testKey, `/v1/payment-intents/${c}`)).body.amount_refunded).toBe(0);
    expect((await stack.api(m.testKey, `/v1/payment-intents/${b}`)).body.amount_refunded).toBe(1500);
    expect((await stack.api(m.testKey, '/v1/refunds')).body.data).toHaveLength(2);

    // A refusal by the limits is not kept under the call's key: once a person raises the limit,
    // the very same call (same derived key) refunds.
    await stack.api(m.testKey, '/v1/merchant', {
      method: 'PATCH',
      json: { mcp: { daily_refund_count: 3, daily_refund_amount: 3000 } },
    });
    expect(await ok(agent, 'refund_payment', { payment_intent: c, amount: 1 })).toMatchObject({ amount: 1 });
    expect((await stack.api(m.testKey, `/v1/payment-intents/${c}`)).body.amount_refunded).toBe(1);

    // The limits are per key: another key of the merchant has its own.
    const { createApiKeyRepository } = await import('../../db/api-keys');
    const other = await createApiKeyRepository(stack.knex).create({ merchantId: m.id, livemode: false });
    const second = await agentFor(other.secret);
    expect(await ok(second, 'refund_payment', { payment_intent: c, amount: 1 })).toMatchObject({ amount: 1 });
    expect((await stack.api(m.testKey, `/v1/payment-intents/${c}`)).body.amount_refunded).toBe(2);
  });

  test('the daily limits hold under concurrent refunds', async () => {
    const m = await stack.merchant();
    await stack.api(m.testKey, '/v1/merchant', { method: 'PATCH', json: { mcp: { daily_refund_count: 3 } } });
    const agent = await agentFor(m.testKey);
    const intents = await Promise.all([1, 2, 3, 4, 5, 6].map(() => paidIntent(m.testKey, 1000)));
    const answers = await Promise.all(
      intents.map((pi) =>
        ok(agent, 'refund_payment', { payment_intent: pi }).then(
          () => 'ok',
          () => 'refused',
        ),
      ),
    );
    expect(answers.filter((a) => a === 'ok')).toHaveLength(3);
    expect((await stack.api(m.testKey, '/v1/refunds')).body.data).toHaveLength(3);
  });

  test('a tool error carries the API message and names the param at fault', async () => {
    const m = await stack.merchant();
    const agent = await agentFor(m.testKey);
    expect(await fails(agent, 'create_checkout_session', { amount: -5 })).toMatchObject({
      type: 'invalid_request_error',
      code: 'parameter_invalid',
      param: 'amount',
      message: expect.stringContaining('amount'),
    });
    expect(await fails(agent, 'create_customer', { email: 'not-an-email' })).toMatchObject({
      type: 'invalid_request_error',
      param: 'email',
    });
    expect(await fails(agent, 'create_customer', { colour: 'red' })).toMatchObject({
      code: 'parameter_unknown',
      param: 'colour',
    });
    expect(await fails(agent, 'refund_payment', {})).toMatchObject({
      code: 'parameter_missing',
      param: 'payment_intent',
    });
    expect(await fails(agent, 'refund_payment', { payment_intent: 'pi_doesnotexist' })).toMatchObject({
      code: 'resource_missing',
      param: 'payment_intent',
      message: "No such payment_intent: 'pi_doesnotexist'",
    });
    expect(await fails(agent, 'get_customer', { id: 'cus_nope' })).toMatchObject({
      code: 'resource_missing',
    });
    expect(await fails(agent, 'list_events', { limit: 500 })).toMatchObject({ param: 'limit' });
    const pi = await paidIntent(m.testKey, 1000);
    expect(await fails(agent, 'refund_payment', { payment_intent: pi, amount: 1001 })).toMatchObject({
      code: 'amount_too_large',
      param: 'amount',
      message: 'Refund amount (1001 ISK) is greater than the unrefunded amount (1000 ISK)',
    });
  });
});

describe('race: the confirmed refund sent twice at once refunds once', () => {
  test('eight tries, same arguments or two idempotency keys with one token', async () => {
    const m = await stack.merchant();
    await stack.api(m.testKey, '/v1/merchant', {
      method: 'PATCH',
      json: { mcp: { confirm_test_refunds: true } },
    });
    const agent = await agentFor(m.testKey);
    const other = await agentFor(m.testKey);
    for (let i = 0; i < 8; i++) {
      const pi = await paidIntent(m.testKey, 2000);
      const preview = await ok(agent, 'refund_payment', { payment_intent: pi, amount: 700 });
      expect(preview.status).toBe('confirmation_required');
      const confirmed = { payment_intent: pi, amount: 700, confirmation_token: preview.confirmation_token };
      const [x, y] =
        i % 2 === 0
          ? [confirmed, confirmed]
          : [
              { ...confirmed, idempotency_key: `a-${i}` },
              { ...confirmed, idempotency_key: `b-${i}` },
            ];
      const answers = await Promise.allSettled([
        ok(agent, 'refund_payment', x),
        ok(other, 'refund_payment', y),
      ]);
      const done = answers.filter((a) => a.status === 'fulfilled').map((a) => a.value);
      expect(done.length).toBeGreaterThanOrEqual(1);
      expect(new Set(done.map((r) => r.id)).size).toBe(1);
      const intent = await stack.api(m.testKey, `/v1/payment-intents/${pi}`);
      expect(intent.body.amount_refunded).toBe(700);
      expect((await stack.api(m.testKey, `/v1/refunds?payment_intent=${pi}`)).body.data).toHaveLength(1);
    }
  });

  test('a confirmation token binds the refund it previewed, for this key, for a short time', async () => {
    const m = await stack.merchant();
    await stack.api(m.testKey, '/v1/merchant', {
      method: 'PATCH',
      json: { mcp: { confirm_test_refunds: true } },
    });
    const agent = await agentFor(m.testKey);
    const pi = await paidIntent(m.testKey, 2000);
    const preview = await ok(agent, 'refund_payment', { payment_intent: pi, amount: 700 });
    const token = preview.confirmation_token as string;
    expect(preview.expires_at - Math.floor(Date.now() / 1000)).toBeLessThanOrEqual(600);
    // Another amount, a made-up token, or another key's call: refused, naming the token.
    for (const args of [
      { payment_intent: pi, amount: 800, confirmation_token: token },
      { payment_intent: pi, amount: 700, confirmation_token: 'rfc_madeup' },
    ]) {
      expect(await fails(agent, 'refund_payment', args)).toMatchObject({ param: 'confirmation_token' });
    }
    const { createApiKeyRepository } = await import('../../db/api-keys');
    const otherKey = await createApiKeyRepository(stack.knex).create({ merchantId: m.id, livemode: false });
    const stranger = await agentFor(otherKey.secret);
    expect(
      await fails(stranger, 'refund_payment', { payment_intent: pi, amount: 700, confirmation_token: token }),
    ).toMatchObject({ param: 'confirmation_token' });
    expect((await stack.api(m.testKey, `/v1/payment-intents/${pi}`)).body.amount_refunded).toBe(0);
    expect(
      await ok(agent, 'refund_payment', { payment_intent: pi, amount: 700, confirmation_token: token }),
    ).toMatchObject({ object: 'refund', amount: 700 });
  });
});
