import type { Browser } from 'playwright-core';
import { verify } from '@octokit/webhooks-methods';
import { launchChromium } from '../helpers/browser';
import { sharedTestStack, type TestMerchant, type TestStack } from '../helpers/stack';
import { startReceiver } from '../helpers/receiver';

/**
 * Issue 20, done-means 1, in headless Chromium: a checkout that asks for a pickup point shows the
 * carriers' points on a coordinate view and in a list (nearest first once the browser tells where
 * the buyer is); the buyer picks one on the map and pays; the delivery is booked with the simulated
 * carrier only after payment, and the merchant's webhook receives delivery.booked.
 */
let stack: TestStack;
let browser: Browser;
let m: TestMerchant;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let secret: string;

beforeAll(async () => {
  [stack, browser, receiver] = await Promise.all([sharedTestStack(), launchChromium(), startReceiver()]);
  m = await stack.merchant('Sendibúð ehf.');
  const channel = await stack.api(m.testKey, '/v1/notification-channels', {
    method: 'POST',
    json: {
      type: 'webhook',
      config: { url: receiver.url },
      event_subscriptions: ['checkout.session.completed', 'delivery.booked'],
    },
  });
  secret = channel.body.config.secret;
});
afterAll(async () => {
  await browser?.close();
  await receiver?.close();
  await stack?.stop();
});

const api = (p: string, json?: unknown) =>
  stack.api(m.testKey, p, json === undefined ? {} : { method: 'POST', json });

test('pick a point on the map, pay; the delivery is booked only after payment; delivery.booked arrives', async () => {
  // No step while no carrier is active: the session cannot even ask for one.
  const refused = await api('/v1/checkout/sessions', { amount: 4900, pickup_point_carriers: ['dropp'] });
  expect(refused.body.error).toMatchObject({ code: 'carrier_not_active', param: 'pickup_point_carriers' });
  await api('/v1/delivery/carriers/dropp', { active: true });
  await api('/v1/delivery/carriers/posturinn', { active: true });
  expect((await api('/v1/merchant')).body.enabled_capabilities).toEqual(
    expect.arrayContaining(['delivery.dropp', 'delivery.posturinn']),
  );
  const plain = (await api('/v1/checkout/sessions', { amount: 1000 })).body;
  const s = (
    await api('/v1/checkout/sessions', {
      amount: 4900,
      locale: 'en',
      pickup_point_carriers: ['dropp', 'posturinn'],
      form_fields: [
        { name: 'name', type: 'text', required: true },
        { name: 'email', type: 'email', required: true },
      ],
    })
  ).body;
  expect(s.pickup_point).toBeNull();

  const context = await browser.newContext({
    viewport: { width: 800, height: 1000 },
    geolocation: { latitude: 64.1432, longitude: -21.9153 }, // at Hlemmur
    permissions: ['geolocation'],
  });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (err) => errors.push(err.message));
  await page.route('**/*', (route) =>
    new URL(route.request().url()).hostname === '127.0.0.1' ? route.continue() : route.abort(),
  );
  try {
    // A session that asks for no pickup point shows no step.
    await page.goto(plain.url);
    expect(await page.getByTestId('pickup-map').count()).toBe(0);

    await page.goto(s.url);
    await page.getByLabel('Name *').fill('Guðrún Ósk');
    await page.getByLabel('Email *').fill('gudrun@example.is');
    // Paying without a point is refused on the page.
    await page.getByLabel('Card number').fill('4242 4242 4242 4242');
    await page.getByLabel(/^Expiry/).fill('12/34');
    await page.getByLabel(/^Security code/).fill('123');
    await page.click('#pay');
    await page.getByTestId('pickup-error').waitFor();

    // Nearest to the buyer: the browser's position, then the list is sorted by distance.
    // The page submits the search once the browser has given its position, after the click has
    // returned, and comes back to the same address: wait for that page's load, not for the URL.
    const searched = page.waitForEvent('load');
    await page.click('#pickup-near');
    await searched;
    await page.waitForURL(s.url);
    await page.getByText('Póstbox Hlemmur').first().waitFor();
    const order = await page
      .getByTestId('pickup-item')
      .evaluateAll((els) =>
        els.map((el) => (el as unknown as { getAttribute(n: string): string }).getAttribute('data-point')),
      );
    expect(order.slice(0, 3)).toEqual([
      'posturinn:pb-105-hlemmur',
      'dropp:d-hallveigarstigur',
      'posturinn:pb-101-austurstraeti',
    ]);
    // The typed answers survive the search.
    expect(await page.getByLabel('Name *').inputValue()).toBe('Guðrún Ósk');

    // The list holds every point of both carriers; the coordinate view frames those near the buyer
    // (the capital area, not Akureyri); the buyer picks Kringlan on it.
    expect(await page.getByTestId('pickup-item').count()).toBe(11);
    expect(await page.getByTestId('pickup-map').locator('button').count()).toBe(9);
    await page.getByTestId('map-point-dropp:d-kringlan').click();
    await page.getByTestId('pickup-chosen').waitFor();
    expect(await page.getByTestId('pickup-chosen').innerText()).toContain('Dropp Kringlan');
    expect(await page.getByTestId('map-point-dropp:d-kringlan').getAttribute('aria-pressed')).toBe('true');

    // Chosen, not paid: the session carries the point, and nothing is booked anywhere.
    expect((await api(`/v1/checkout/sessions/${s.id}`)).body.pickup_point).toMatchObject({
      id: 'dropp:d-kringlan',
      carrier: 'dropp',
    });
    expect((await api(`/v1/deliveries?checkout_session=${s.id}`)).body.data).toEqual([]);

    await page.getByLabel('Card number').fill('4242 4242 4242 4242');
    await page.getByLabel(/^Expiry/).fill('12/34');
    await page.getByLabel(/^Security code/).fill('123');
    await page.click('#pay');
    await page.getByTestId('status').waitFor();
    expect(errors).toEqual([]);
  } finally {
    await context.close();
  }

  const paid = (await api(`/v1/checkout/sessions/${s.id}`)).body;
  expect(paid).toMatchObject({ status: 'complete', payment_status: 'paid' });
  const [delivery] = (await api(`/v1/deliveries?checkout_session=${s.id}`)).body.data;
  expect(delivery).toMatchObject({
    status: 'booked',
    carrier: 'dropp',
    pickup_point: { id: 'dropp:d-kringlan' },
    recipient: { name: 'Guðrún Ósk', email: 'gudrun@example.is' },
  });
  // The simulated carrier has the order, under the delivery id.
  const atCarrier = await fetch(`${stack.carriers.url}/dropp/api/v1/orders/${delivery.carrier_order_id}`, {
    headers: { authorization: 'Basic dGVzdA==' },
  });
  expect(await atCarrier.json()).toMatchObject({
    barcode: delivery.id,
    locationId: 'd-kringlan',
    status: 'initial',
  });

  // The merchant's endpoint receives both events, signed; the booking never precedes the payment.
  const received = await receiver.waitFor(2, 20_000);
  const mine = received.filter((r) => r.body.data.id === s.id || r.body.data.id === delivery.id);
  expect(mine.map((r) => r.body.type).sort()).toEqual(['checkout.session.completed', 'delivery.booked']);
  for (const r of mine)
    expect(await verify(secret, r.rawBody.toString('utf8'), String(r.headers['x-service-signature']))).toBe(
      true,
    );
  const booked = mine.find((r) => r.body.type === 'delivery.booked')!.body;
  const completed = mine.find((r) => r.body.type === 'checkout.session.completed')!.body;
  expect(Date.parse(booked.created_at)).toBeGreaterThanOrEqual(Date.parse(completed.created_at));
  expect(booked.data).toMatchObject({ id: delivery.id, status: 'booked', checkout_session: s.id });
});
