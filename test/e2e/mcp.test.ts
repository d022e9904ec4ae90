import type { Browser } from 'playwright-core';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { launchChromium } from '../helpers/browser';
import { sharedTestStack, type TestMerchant, type TestStack } from '../helpers/stack';
import { callTool, connectMcp, fails, ok } from '../helpers/mcp';
import { until } from '../helpers/until';

/**
 * Issue 18, done-means 1: the SDK's own MCP client over Streamable HTTP against the running service
 * lists the tools, creates a checkout session that a buyer pays on the hosted checkout in Chromium,
 * reads the payment, creates a payment link; the same call with the same idempotency key returns the
 * same object; with the confirmation setting on, a refund without confirmation is refused and changes
 * nothing, and with confirmation it succeeds once even when the confirmed call is sent twice.
 */

let stack: TestStack;
let browser: Browser;
let m: TestMerchant;
let agent: Client;

beforeAll(async () => {
  [stack, browser] = await Promise.all([sharedTestStack(), launchChromium()]);
  m = await stack.merchant('Agent verslun ehf.');
  agent = await connectMcp(stack.url, m.testKey);
});
afterAll(async () => {
  await agent?.close();
  await browser?.close();
  await stack?.stop();
});

const rest = (path: string) => stack.api(m.testKey, path);

/** Pays a session on the hosted checkout with the success card, as a buyer would. */
async function payOnHostedCheckout(url: string) {
  const context = await browser.newContext({ viewport: { width: 1000, height: 900 }, locale: 'en-GB' });
  const page = await context.newPage();
  await page.route('**/*', (route) =>
    new URL(route.request().url()).hostname === '127.0.0.1' ? route.continue() : route.abort(),
  );
  try {
    await page.goto(url);
    await page.getByLabel(/^Card number/).fill('4242 4242 4242 4242');
    await page.getByLabel(/^Expiry/).fill('12/34');
    await page.getByLabel(/^Security code/).fill('123');
    await Promise.all([page.waitForNavigation(), page.click('#pay')]);
  } finally {
    await context.close();
  }
}

test('an agent sells through checkout, reads the payment, makes a link, and refunds once with confirmation', async () => {
  // The tool set, each described.
  const { tools } = await agent.listTools();
  const names = tools.map((t) => t.name).sort();
  expect(names).toEqual(
    expect.arrayContaining([
      'create_checkout_session',
      'get_checkout_session',
      'create_payment_link',
      'list_payment_intents',
      'get_payment_intent',
      'refund_payment',
      'list_customers',
      'get_customer',
      'create_customer',
      'list_products',
      'get_product',
      'list_prices',
      'get_price',
      'list_events',
      'list_settlement_runs',
    ]),
  );
  expect(tools.length).toBeLessThanOrEqual(40);
  for (const t of tools) expect((t.description ?? '').length).toBeGreaterThan(20);

  // A checkout session; the same call with the same key is the same session.
  const args = { amount: 4900, locale: 'en', form_fields: [], idempotency_key: 'order-4711' };
  const session = await ok(agent, 'create_checkout_session', args);
  expect(session).toMatchObject({ object: 'checkout.session', amount: 4900, status: 'open' });
  const again = await ok(agent, 'create_checkout_session', args);
  expect(again).toEqual(session);
  expect((await rest('/v1/checkout/sessions')).body.data).toHaveLength(1);
  // The same key with other arguments is refused, naming the key.
  const reused = await fails(agent, 'create_checkout_session', { ...args, amount: 5000 });
  expect(reused).toMatchObject({ type: 'idempotency_error', param: 'idempotency_key' });

  // The buyer pays on the hosted checkout; the agent reads the payment.
  await payOnHostedCheckout(session.url);
  const paid = await until(
    () => ok(agent, 'get_checkout_session', { id: session.id }),
    (s: any) => s.payment_status === 'paid',
  );
  expect(paid.payment_intent).toMatch(/^pi_/);
  const payment = await ok(agent, 'get_payment_intent', { id: paid.payment_intent });
  expect(payment).toMatchObject({
    id: paid.payment_intent,
    object: 'payment_intent',
    status: 'succeeded',
    amount_received: 4900,
    amount_refunded: 0,
    refunds: [],
  });
  const listed = await ok(agent, 'list_payment_intents', {});
  expect(listed.data.map((p: any) => p.id)).toContain(payment.id);

  // A payment link, once for two identical calls with one key.
  const linkArgs = { amount: 2500, idempotency_key: 'link-2500' };
  const link = await ok(agent, 'create_payment_link', linkArgs);
  expect(link).toMatchObject({ object: 'payment_link' });
  expect(await ok(agent, 'create_payment_link', linkArgs)).toEqual(link);
  expect((await rest('/v1/payment-links')).body.data.map((l: any) => l.id)).toEqual([link.id]);

  // The merchant asks for confirmation of refunds in test mode too.
  const setting = await stack.api(m.testKey, '/v1/merchant', {
    method: 'PATCH',
    json: { mcp: { confirm_test_refunds: true } },
  });
  expect(setting.status).toBe(200);
  expect(setting.body.mcp).toMatchObject({ confirm_test_refunds: true });

  // Unconfirmed: a preview and a token, and nothing refunded.
  const preview = await ok(agent, 'refund_payment', { payment_intent: payment.id, amount: 1500 });
  expect(preview).toMatchObject({
    object: 'refund_preview',
    status: 'confirmation_required',
    payment_intent: payment.id,
    amount: 1500,
  });
  expect(preview.confirmation_token).toEqual(expect.any(String));
  expect((await rest(`/v1/payment-intents/${payment.id}`)).body.amount_refunded).toBe(0);
  expect((await rest(`/v1/refunds?payment_intent=${payment.id}`)).body.data).toEqual([]);

  // Confirmed, and sent twice at once: one refund.
  const confirmed = {
    payment_intent: payment.id,
    amount: 1500,
    confirmation_token: preview.confirmation_token,
  };
  const answers = await Promise.all([
    callTool(agent, 'refund_payment', confirmed),
    callTool(agent, 'refund_payment', confirmed),
  ]);
  const refunds = answers.filter((a) => a.ok).map((a) => (a as { result: any }).result);
  expect(refunds.length).toBeGreaterThanOrEqual(1);
  for (const r of refunds) expect(r).toMatchObject({ object: 'refund', amount: 1500, status: 'succeeded' });
  expect(new Set(refunds.map((r) => r.id)).size).toBe(1);
  for (const a of answers) if (!a.ok) expect(a.error).toMatchObject({ code: 'idempotency_key_in_use' });
  // A retry after both answered returns the same refund.
  expect((await ok(agent, 'refund_payment', confirmed)).id).toBe(refunds[0].id);
  expect((await rest(`/v1/payment-intents/${payment.id}`)).body.amount_refunded).toBe(1500);
  expect((await rest(`/v1/refunds?payment_intent=${payment.id}`)).body.data).toHaveLength(1);
  const after = await ok(agent, 'get_payment_intent', { id: payment.id });
  expect(after.refunds.map((r: any) => r.id)).toEqual([refunds[0].id]);
});
