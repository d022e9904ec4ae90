import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { startTestStack, type TestStack } from '../helpers/stack';
import { connectMcp, fails, ok } from '../helpers/mcp';

/**
 * Issue 18 (MCP server at /mcp), done-means 2 and 3, with the SDK's own MCP client over Streamable
 * HTTP against the running API and worker. Done-means 1 (the hosted checkout) is in test/e2e/mcp.test.ts.
 */

let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack({ realBaseUrl: true });
});
afterAll(async () => {
  await stack?.stop();
});

const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});
async function agentFor(key: string): Promise<Client> {
  const c = await connectMcp(stack.url, key);
  clients.push(c);
  return c;
}

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
    await expect(connectMcp(stack.url, null)).rejects.toThrow(/401/);
    await expect(connectMcp(stack.url, `${m.testKey.slice(0, -4)}zzzz`)).rejects.toThrow(/401/);
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
