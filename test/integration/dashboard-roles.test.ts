import { startTestStack, type TestMerchant, type TestStack } from '../helpers/stack';
import { WebClient, createMerchantUser, createOperator, type TestUser } from '../helpers/accounts';
import { until } from '../helpers/until';
import { setPos } from '../helpers/pos';

/**
 * Merchant team roles on the dashboard (decisions 0117, 0119): a read-only member sees no
 * refund and a refund it posts by hand with a valid session and CSRF token is refused with nothing
 * moved; a merchant `finance` member reads its own settlement runs, payouts and their CSV and can
 * change nothing.
 */

let stack: TestStack;
let m: TestMerchant;
let owner: TestUser;
let readOnly: TestUser;
let finance: TestUser;

beforeAll(async () => {
  stack = await startTestStack({ bankFiles: true });
  m = await stack.merchant('Hlutverk ehf.');
  owner = await createMerchantUser(stack.knex, m.id, 'owner');
  readOnly = await createMerchantUser(stack.knex, m.id, 'read_only');
  finance = await createMerchantUser(stack.knex, m.id, 'finance');
});
afterAll(async () => {
  await stack?.stop();
});

async function signedIn(u: TestUser): Promise<WebClient> {
  const web = new WebClient(stack.url);
  expect((await web.signIn(u.email, u.password)).status).toBe(303);
  return web;
}

async function cardPayment(amount: number): Promise<string> {
  const r = await stack.api(m.testKey, '/v1/payment-intents', {
    method: 'POST',
    json: {
      amount,
      description: `Hlutverk ${amount}`,
      card: { number: '4242424242424242', exp_month: 12, exp_year: 2040, cvc: '123' },
      confirm: true,
    },
  });
  expect(r.body.status).toBe('succeeded');
  return r.body.id as string;
}

const refundsOf = async (pi: string) =>
  (await stack.api(m.testKey, `/v1/refunds?payment_intent=${pi}`)).body.data as { amount: number }[];

/** Every POST form's action on a page. */
const postActions = (page: string) =>
  [...page.matchAll(/<form[^>]*method="post"[^>]*action="([^"]+)"/g)].map((x) => x[1]);

test('a read-only member sees no refund, and a refund it posts by hand is refused with nothing moved', async () => {
  const pi = await cardPayment(4900);
  const web = await signedIn(readOnly);
  const page = await web.get(`/dashboard/payments/${pi}`);
  expect(page.status).toBe(200);
  expect(page.text).toContain('4,900');
  expect(page.text).not.toContain('Refund payment');
  expect(postActions(page.text)).toEqual(['/dashboard/sign-out']);
  // The header offers only what the role may open.
  expect(page.text).not.toContain('href="/dashboard/settlement"');
  expect(page.text).not.toContain('href="/dashboard/api-keys"');

  // A refund posted by hand, with this session's own valid CSRF token, in part and in full.
  for (const form of [
    {},
    { amount: '100' },
    { amount: '4900', reason: 'duplicate', refund_key: 'a'.repeat(24) },
  ] as Record<string, string>[]) {
    const res = await web.post(`/dashboard/payments/${pi}/refund`, { _csrf: web.csrf()!, ...form });
    expect(res.status).toBe(403);
    expect(res.text).toContain('read_only');
    await web.get(`/dashboard/payments/${pi}`);
  }
  expect(await refundsOf(pi)).toEqual([]);
  const after = await stack.api(m.testKey, `/v1/payment-intents/${pi}`);
  expect(after.body.amount_refunded).toBe(0);
  expect(await stack.knex('refunds').where({ payment_intent_id: pi })).toEqual([]);

  // Other changes it may not make are refused the same way.
  for (const [path, form] of [
    ['/dashboard/products', { name: 'Nei', vat_rate: '24', unit_amount: '100' }],
    ['/dashboard/api-keys', { mode: 'test' }],
  ] as const) {
    const res = await web.post(path, { _csrf: web.csrf()!, ...form });
    expect(res.status).toBe(403);
  }
  expect((await stack.api(m.testKey, '/v1/products')).body.data).toEqual([]);
});

test('a member who may refund sees the form; the same form posted five times at once refunds once', async () => {
  const pi = await cardPayment(3000);
  const web = await signedIn(finance);
  const page = await web.get(`/dashboard/payments/${pi}`);
  expect(page.text).toContain('Refund payment');
  const key = /name="refund_key" value="([0-9A-Za-z]{24})"/.exec(page.text)![1]!;
  const csrf = web.csrf()!;
  const results = await Promise.all(
    Array.from({ length: 5 }, () =>
      web.post(`/dashboard/payments/${pi}/refund`, { _csrf: csrf, refund_key: key, amount: '1000' }),
    ),
  );
  expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
  expect((await refundsOf(pi)).map((r) => r.amount)).toEqual([1000]);
  expect((await stack.api(m.testKey, `/v1/payment-intents/${pi}`)).body.amount_refunded).toBe(1000);
});

test('a merchant finance member reads its own settlement runs, payouts and lines, and changes nothing', async () => {
  const operator = await createOperator(stack.knex);
  const other = await stack.merchant('Annar ehf.');
  const profile = await stack.api(m.testKey, '/v1/merchant', {
    method: 'PATCH',
    json: { kennitala: '4709063520', bank_account: '0101-26-123456' },
  });
  expect(profile.status).toBe(200);
  const pi = await cardPayment(12000);
  await stack.api(other.testKey, '/v1/payment-intents', {
    method: 'POST',
    json: {
      amount: 777,
      card: { number: '4242424242424242', exp_month: 12, exp_year: 2040, cvc: '123' },
      confirm: true,
    },
  });
  const day = await stack.api(operator.token, '/v1/operator/settlement-days', { method: 'POST', json: {} });
  expect(day.status).toBe(200);
  const run = (await stack.api(m.testKey, '/v1/settlement-runs')).body.data[0];
  expect(run).toBeDefined();
  // Small runs are approved by policy; a larger one waits for an operator.
  const settled = await until(
    () => stack.api(m.testKey, `/v1/settlement-runs/${run.id}`),
    (r) => r.body.status !== 'open',
    30_000,
  );
  if (settled.body.status === 'pending_review') {
    const approved = await stack.api(operator.token, `/v1/operator/settlement-runs/${run.id}/approve`, {
      method: 'POST',
      json: {},
    });
    expect(approved.status).toBe(200);
  }
  const withPayout = await until(
    () => stack.api(m.testKey, `/v1/settlement-runs/${run.id}`),
    (r) => r.body.payout !== null,
    30_000,
  );
  const payout = withPayout.body.payout;

  const web = await signedIn(finance);
  const list = await web.get('/dashboard/settlement');
  expect(list.status).toBe(200);
  expect(list.text).toContain(run.id);
  expect(list.text).not.toContain('777');
  const detail = await web.get(`/dashboard/settlement/${run.id}`);
  expect(detail.status).toBe(200);
  expect(detail.text).toContain(payout.end_to_end_id);
  expect(detail.text).toContain(pi);
  expect(postActions(detail.text)).toEqual(['/dashboard/sign-out']);
  const csv = await web.get(`/dashboard/settlement/${run.id}/lines.csv`);
  expect(csv.status).toBe(200);
  expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
  expect(csv.text).toContain(pi);
  expect(csv.text).toBe((await stack.api(m.testKey, `/v1/settlement-runs/${run.id}/lines.csv`)).text);

  // Another merchant's run is not found; the platform's finance pages are not a merchant's.
  const theirs = (await stack.api(other.testKey, '/v1/settlement-runs')).body.data[0];
  expect((await web.get(`/dashboard/settlement/${theirs.id}`)).status).toBe(404);
  expect((await web.get('/dashboard/finance')).status).toBe(403);
  expect((await web.post(`/dashboard/finance/runs/${run.id}/approve`, { _csrf: web.csrf()! })).status).toBe(
    403,
  );

  // Changes nothing: every change it tries is refused, and nothing moved.
  await web.get('/dashboard/home');
  // The run's own workflow moves it on (approved, then submitted with its payout) while this test
  // reads its pages: compared once the payout has left, so only the refused requests could move it.
  const before = await until(
    () => stack.knex('settlement_runs').where({ id: run.id }).first(),
    (r) => ['submitted', 'paid', 'failed'].includes(r.status),
    30_000,
  );
  for (const [path, form] of [
    ['/dashboard/products', { name: 'Nei', vat_rate: '24', unit_amount: '100' }],
    ['/dashboard/payment-links', { price: 'price_abcdefgh', quantity: '1' }],
    ['/dashboard/api-keys', { mode: 'test' }],
    ['/dashboard/profile', { name: 'Breytt' }],
    ['/dashboard/webhooks/nc_abcdefgh/enable', { mode: 'test' }],
  ] as const) {
    const res = await web.post(path, { _csrf: web.csrf()!, ...form });
    expect({ path, status: res.status }).toEqual({ path, status: 403 });
  }
  expect(await stack.knex('settlement_runs').where({ id: run.id }).first()).toEqual(before);
  expect((await stack.knex('merchants').where({ id: m.id }).first()).name).toBe('Hlutverk ehf.');
  expect(await stack.knex('api_keys').where({ merchant_id: m.id })).toHaveLength(2);

  // A read-only member does not read settlement at all.
  const ro = await signedIn(readOnly);
  expect((await ro.get('/dashboard/settlement')).status).toBe(403);
  expect((await ro.get(`/dashboard/settlement/${run.id}/lines.csv`)).status).toBe(403);
  // The owner may.
  expect((await (await signedIn(owner)).get(`/dashboard/settlement/${run.id}`)).status).toBe(200);
});

test('pairing a till is for members who manage credentials: a read-only member is refused the page and the code; the owner’s code pairs one tablet once', async () => {
  await setPos(stack, m.id, true);
  const register = await stack.api(m.testKey, '/v1/pos/registers', {
    method: 'POST',
    json: { name: 'Kassi R' },
  });
  expect(register.status).toBe(200);
  const codesOf = () => stack.knex('pos_pairing_codes').where({ register_id: register.body.id });

  const ro = await signedIn(readOnly);
  expect((await ro.get('/dashboard/tills')).status).toBe(403);
  await ro.get('/dashboard/home');
  const refused = await ro.post(`/dashboard/tills/${register.body.id}/pairing-codes`, { _csrf: ro.csrf()! });
  expect(refused.status).toBe(403);
  expect(await codesOf()).toEqual([]);

  const own = await signedIn(owner);
  const page = await own.get('/dashboard/tills');
  expect(page.status).toBe(200);
  expect(postActions(page.text)).toContain(`/dashboard/tills/${register.body.id}/pairing-codes`);
  const made = await own.post(`/dashboard/tills/${register.body.id}/pairing-codes`, { _csrf: own.csrf()! });
  expect(made.status).toBe(200);
  const code = /data-testid="pairing-code"\s*>([A-Z0-9]{8})</.exec(made.text)?.[1];
  expect(code).toBeDefined();
  expect(await codesOf()).toHaveLength(1);
  const pair = () =>
    fetch(`${stack.url}/v1/pos/devices`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ pairing_code: code }),
    });
  const [first, second] = [await pair(), await pair()];
  expect(first.status).toBe(200);
  expect(((await first.json()) as { credential: string }).credential).toMatch(/^skpos_test_/);
  expect(second.status).toBe(400);
});
