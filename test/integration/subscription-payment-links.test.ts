import { sharedTestStack, type TestMerchant, type TestStack } from '../helpers/stack';
import { periodAt } from '../../domain/billing-calendar';
import { createMerchantUser, WebClient } from '../helpers/accounts';

/**
 * Payment links with `mode: 'subscription'` (decision 0124): a no-code link whose checkout
 * signs the buyer up to a recurring price, as Stripe's payment links do. Bought through the hosted
 * checkout the link opens, it leaves an active subscription billed monthly whose first period is paid.
 */

let stack: TestStack;
let m: TestMerchant;

beforeAll(async () => {
  stack = await sharedTestStack();
  m = await stack.merchant('Áskriftartenglar ehf.');
});
afterAll(async () => {
  await stack?.stop();
});

const post = (path: string, json: unknown) => stack.api(m.testKey, path, { method: 'POST', json });
const get = (path: string) => stack.api(m.testKey, path);
const unixOf = (ms: number) => Math.floor(ms / 1000);
const card = { card_number: '4242424242424242', card_exp: '12/34', card_cvc: '123' };

async function submit(url: string, form: Record<string, string>) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
    redirect: 'manual',
  });
  return { status: res.status, location: res.headers.get('location'), text: await res.text() };
}

async function product(name: string, priceData: Record<string, unknown>) {
  const r = await post('/v1/products', { name, vat_rate: 24, default_price_data: priceData });
  expect(r.status).toBe(200);
  return { product: r.body.id as string, price: r.body.default_price as string };
}

test('a subscription link: its checkout creates an active subscription billed monthly, period 0 paid', async () => {
  const { price } = await product('Kaffiáskrift', { unit_amount: 3990, recurring: { interval: 'month' } });
  const created = await post('/v1/payment-links', {
    mode: 'subscription',
    items: [{ price }],
    success_url: 'https://kaffi.is/takk',
    subscription_data: { metadata: { plan: 'kaffi' } },
  });
  expect(created.status).toBe(200);
  expect(created.body).toMatchObject({
    object: 'payment_link',
    mode: 'subscription',
    active: true,
    items: [{ price, quantity: 1 }],
    subscription_data: { trial_period_days: null, metadata: { plan: 'kaffi' } },
  });
  expect((await get(`/v1/payment-links/${created.body.id}`)).body.mode).toBe('subscription');

  // A visit opens a subscription session; the buyer pays on the hosted page.
  const visit = await fetch(created.body.url, { redirect: 'manual' });
  expect(visit.status).toBe(303);
  const sessionUrl = visit.headers.get('location')!;
  const sessionId = sessionUrl.split('/').pop()!;
  const open = (await get(`/v1/checkout/sessions/${sessionId}`)).body;
  expect(open).toMatchObject({ amount: 3990, status: 'open', save_payment_method: true, subscription: null });
  const paid = await submit(sessionUrl, {
    action: 'pay',
    f_name: 'Sigrún',
    f_email: 'sigrun@example.is',
    ...card,
  });
  expect(paid.location).toBe('https://kaffi.is/takk');

  const done = (await get(`/v1/checkout/sessions/${sessionId}`)).body;
  expect(done).toMatchObject({ status: 'complete', payment_status: 'paid' });
  expect(done.subscription).toMatch(/^sub_/);
  const sub = (await get(`/v1/subscriptions/${done.subscription}`)).body;
  expect(sub).toMatchObject({
    status: 'active',
    customer: done.customer,
    price,
    quantity: 1,
    default_payment_method: done.payment_method,
    metadata: { plan: 'kaffi' },
  });
  // Billed monthly: period 0 runs from the anchor to one calendar month later.
  const anchor = new Date(sub.billing_cycle_anchor * 1000);
  const period0 = periodAt(anchor, { interval: 'month', intervalCount: 1 }, 0);
  expect(sub.current_period_start).toBe(sub.billing_cycle_anchor);
  expect(sub.current_period_end).toBe(unixOf(period0.end.getTime()));
  expect(sub.current_period_end - sub.current_period_start).toBeGreaterThanOrEqual(28 * 86_400);
  const renewals = await stack.knex('renewals').where({ subscription_id: sub.id });
  expect(renewals.map((r) => [r.period_index, r.status, Number(r.amount)])).toEqual([[0, 'paid', 3990]]);
  expect((await get(`/v1/payment-links/${created.body.id}`)).body.completed_sessions_count).toBe(1);

  // A second visit is a new sign-up: another session, another subscription.
  const again = await fetch(created.body.url, { redirect: 'manual' });
  expect(again.headers.get('location')).not.toBe(sessionUrl);
}, 90_000);

test('a subscription link with a trial signs up without charging', async () => {
  const { price } = await product('Prufa', { unit_amount: 1990, recurring: { interval: 'month' } });
  const link = await post('/v1/payment-links', {
    mode: 'subscription',
    items: [{ price }],
    subscription_data: { trial_period_days: 7 },
  });
  expect(link.status).toBe(200);
  expect(link.body.subscription_data).toEqual({ trial_period_days: 7, metadata: {} });
  const visit = await fetch(link.body.url, { redirect: 'manual' });
  const sessionUrl = visit.headers.get('location')!;
  expect(
    (await submit(sessionUrl, { action: 'pay', f_name: 'Ari', f_email: 'ari@example.is', ...card })).status,
  ).toBeLessThan(400);
  const done = (await get(`/v1/checkout/sessions/${sessionUrl.split('/').pop()}`)).body;
  expect(done).toMatchObject({ status: 'complete', payment_status: 'no_payment_required', amount: 0 });
  expect((await get(`/v1/subscriptions/${done.subscription}`)).body.status).toBe('trialing');
}, 60_000);

test('payment links stay payment links by default; a subscription link is refused without one recurring price', async () => {
  const { price: recurring } = await product('Mánaðarlega', {
    unit_amount: 990,
    recurring: { interval: 'month' },
  });
  const { product: oneOff, price: oneOffPrice } = await product('Bolli', { unit_amount: 500 });
  const plain = await post('/v1/payment-links', { amount: 1000 });
  expect(plain.status).toBe(200);
  expect(plain.body).toMatchObject({ mode: 'payment', subscription_data: null });

  const linksBefore = (await get('/v1/payment-links?limit=100')).body.data.length;
  const sessionsBefore = (await get('/v1/checkout/sessions?limit=100')).body.data.length;
  const refused = async (json: unknown, param: string) => {
    const r = await post('/v1/payment-links', json);
    expect([r.status, r.body.error?.param]).toEqual([400, param]);
  };
  await refused({ mode: 'subscription', items: [{ product: oneOff }] }, 'items.0');
  await refused({ mode: 'subscription', items: [{ price: oneOffPrice }] }, 'items.0');
  await refused({ mode: 'subscription', amount: 1000 }, 'amount');
  await refused({ mode: 'subscription', items: [{ price: recurring }, { price: recurring }] }, 'items');
  await refused({ items: [{ price: recurring }] }, 'items.0');
  await refused({ amount: 1000, subscription_data: { trial_period_days: 3 } }, 'subscription_data');
  await refused({ mode: 'setup', amount: 1000 }, 'mode');
  await refused(
    { mode: 'subscription', items: [{ price: recurring }], subscription_data: { trial_end: 4102444800 } },
    'subscription_data.trial_end',
  );
  // Nothing was left behind by the refused links' probes.
  expect((await get('/v1/payment-links?limit=100')).body.data).toHaveLength(linksBefore);
  expect((await get('/v1/checkout/sessions?limit=100')).body.data).toHaveLength(sessionsBefore);
});

test('the dashboard form makes the same subscription link, and refuses what the API refuses with its param', async () => {
  const { price: recurring } = await product('Vikulega', {
    unit_amount: 1290,
    recurring: { interval: 'week' },
  });
  const { price: oneOff } = await product('Kanna', { unit_amount: 700 });
  const user = await createMerchantUser(stack.knex, m.id, 'developer');
  const web = new WebClient(stack.url);
  expect((await web.signIn(user.email, user.password)).status).toBe(303);
  const form = await web.get('/dashboard/payment-links');
  expect(form.text).toMatch(/<optgroup label="Recurring prices[^"]*">[\s\S]*Vikulega[\s\S]*every week/);
  const linksBefore = (await get('/v1/payment-links?limit=100')).body.data.length;
  for (const [fields, message] of [
    [{ mode: 'subscription', price: oneOff, quantity: '1' }, /\(items\.0\)/],
    [{ mode: 'payment', price: oneOff, quantity: '1', trial_period_days: '7' }, /\(trial_period_days\)/],
    [
      { mode: 'subscription', price: recurring, quantity: '1', trial_period_days: '731' },
      /\(trial_period_days\)/,
    ],
  ] as const) {
    await web.get('/dashboard/payment-links');
    const res = await web.post('/dashboard/payment-links', fields);
    expect({ fields, status: res.status }).toEqual({ fields, status: 400 });
    expect(res.text).toMatch(message);
  }
  expect((await get('/v1/payment-links?limit=100')).body.data).toHaveLength(linksBefore);

  await web.get('/dashboard/payment-links');
  const made = await web.post('/dashboard/payment-links', {
    mode: 'subscription',
    price: recurring,
    quantity: '1',
    trial_period_days: '14',
  });
  expect(made.status).toBe(200);
  const link = (await get('/v1/payment-links?limit=1')).body.data[0];
  expect(link).toMatchObject({
    mode: 'subscription',
    subscription_data: { trial_period_days: 14, metadata: {} },
    items: [{ price: recurring, quantity: 1 }],
  });
  expect(made.text).toContain(`Payment link created: ${link.url}`);
  expect(made.text).toMatch(new RegExp(`data-link="${link.id}" data-mode="subscription"`));
});
