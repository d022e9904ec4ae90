import { z } from 'zod';
import { sharedTestStack, type TestMerchant, type TestStack } from '../helpers/stack';
import { CheckoutSessionSchema } from '../../services/checkout/checkout-session-object';
import { createCheckoutActivities } from '../../activities/checkout';
import { createSessionExpiry } from '../../services/checkout/session-expiry';

/**
 * Checkout sessions through the API (spec §2.1, §3, §4.5): every response checked against the §2.1
 * schema, inputs, expiry, short URLs, paying through the hosted page's form, payment links and
 * saved cards.
 */

let stack: TestStack;
let m: TestMerchant;

/** The exact field list of spec §2.1, in order. */
const SPEC_FIELDS = [
  'id', 'object', 'livemode', 'amount', 'amount_subtotal', 'discount_amount', 'promotion_code_id', 'currency',
  'status', 'url', 'short_url', 'success_url', 'cancel_url', 'save_payment_method', 'customer', 'product',
  'subscription', 'payment_intent', 'payment_method', 'customer_email', 'customer_name', 'customer_phone',
  'payment_status', 'locale', 'items', 'form_fields', 'custom_fields', 'allow_custom_amount', 'minimum_amount',
  'expires_at', 'created_at', 'metadata',
  // Our extensions of §2.1: the pickup point chosen, or null (decision 0134); whether the page
  // offers "invoice to a company" (decision 0212).
  'pickup_point', 'business_invoice',
]; // prettier-ignore

let checked = 0;
/** Every session response goes through this: strict schema (no field missing, none extra). */
function session(body: unknown) {
  const parsed = CheckoutSessionSchema.strict().parse(body);
  expect(Object.keys(body as object)).toEqual(SPEC_FIELDS);
  checked++;
  return parsed;
}

beforeAll(async () => {
  stack = await sharedTestStack();
  m = await stack.merchant('Kassi ehf.');
});
afterAll(async () => {
  await stack?.stop();
});

const post = (path: string, json: unknown, key = m.testKey) => stack.api(key, path, { method: 'POST', json });

/** Submits the hosted checkout form as a browser would (urlencoded), without following redirects. */
async function submit(url: string, form: Record<string, string>) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
    redirect: 'manual',
  });
  return { status: res.status, location: res.headers.get('location'), text: await res.text() };
}
const card = (number: string) => ({ card_number: number, card_exp: '12/34', card_cvc: '123' });

describe('create and retrieve', () => {
  test('amount session: §2.1 fields, open/unpaid, 24 h expiry, both path forms, integer strings', async () => {
    const before = Math.floor(Date.now() / 1000);
    const a = await post('/v1/checkout/sessions/', {
      amount: '4900',
      currency: 'isk',
      success_url: 'https://shop.is/ok?cs={CHECKOUT_SESSION_ID}',
    });
    expect(a.status).toBe(200);
    const s = session(a.body);
    expect(s).toMatchObject({
      amount: 4900,
      amount_subtotal: 4900,
      discount_amount: 0,
      status: 'open',
      payment_status: 'unpaid',
      currency: 'ISK',
      items: [],
      form_fields: null,
      custom_fields: null,
      livemode: false,
      locale: null,
    });
    expect(s.expires_at - s.created_at).toBe(24 * 3600);
    expect(s.created_at).toBeGreaterThanOrEqual(before);
    expect(s.url).toBe(`${stack.url}/checkout/${s.id}`);
    expect(s.short_url).toMatch(new RegExp(`^${stack.url}/s/[0-9A-Za-z]{10}$`));

    const b = await post('/v1/checkout/sessions', { amount: 100 });
    expect(b.status).toBe(200);
    session(b.body);
    for (const path of [`/v1/checkout/sessions/${s.id}`, `/v1/checkout/sessions/${s.id}/`]) {
      const got = await stack.api(m.testKey, path);
      expect(got.status).toBe(200);
      expect(session(got.body)).toEqual(s);
    }
    const list = await stack.api(m.testKey, '/v1/checkout/sessions?limit=2');
    list.body.data.forEach(session);

    // The short URL redirects to the session url, with no key.
    const short = await fetch(s.short_url, { redirect: 'manual' });
    expect(short.status).toBe(302);
    expect(short.headers.get('location')).toBe(s.url);
  });

  test('items from products, variants and ad-hoc lines; product; prefill from customer; form fields; metadata', async () => {
    const prod = await post('/v1/products', {
      name: 'Kaffi',
      vat_rate: 11,
      default_price_data: { unit_amount: 1200 },
    });
    const shirt = await post('/v1/products', { name: 'Bolur', default_price_data: { unit_amount: 3000 } });
    const variant = await post(`/v1/products/${shirt.body.id}/variants`, { name: 'L', unit_amount: 3500 });
    expect(variant.status).toBe(200);
    const cus = await post('/v1/customers', { name: 'Jón', email: 'jon@example.is' });
    const r = await post('/v1/checkout/sessions', {
      items: [
        { product: prod.body.id, quantity: '2' },
        { product: shirt.body.id, variant: variant.body.id },
        { description: 'Sending', unit_amount: 990, vat_rate: 24 },
      ],
      customer: cus.body.id,
      form_fields: [
        { name: 'name', type: 'text', required: true },
        { name: 'size_note', type: 'text', required: false },
      ],
      locale: 'is',
      metadata: { order: '42' },
      save_payment_method: 'true',
    });
    expect(r.status).toBe(200);
    const s = session(r.body);
    expect(s.amount).toBe(2 * 1200 + 3500 + 990);
    expect(s.items.map((i) => [i.description, i.quantity, i.unit_amount, i.vat_rate, i.variant_id])).toEqual([
      ['Kaffi', 2, 1200, 11, null],
      ['Bolur — L', 1, 3500, 24, variant.body.id],
      ['Sending', 1, 990, 24, null],
    ]);
    expect(s).toMatchObject({
      customer: cus.body.id,
      customer_name: 'Jón',
      customer_email: 'jon@example.is',
      locale: 'is',
      metadata: { order: '42' },
      save_payment_method: true,
    });

    const byProduct = session((await post('/v1/checkout/sessions', { product: prod.body.id })).body);
    expect(byProduct).toMatchObject({ product: prod.body.id, amount: 1200 });
    expect(
      session((await post('/v1/checkout/sessions', { amount: 5, form_fields: [] })).body).form_fields,
    ).toEqual([]);
  });

  test('promotion code discounts the amount; bad input is a 400 naming the parameter', async () => {
    const coupon = await post('/v1/coupons', { percent_off: 10, duration: 'once' });
    const promo = await post('/v1/promotion-codes', { coupon: coupon.body.id, code: 'HAUST10' });
    expect(promo.status).toBe(200);
    const s = session(
      (await post('/v1/checkout/sessions', { amount: 5000, promotion_code: 'haust10' })).body,
    );
    expect(s).toMatchObject({
      amount: 4500,
      amount_subtotal: 5000,
      discount_amount: 500,
      promotion_code_id: promo.body.id,
    });

    for (const [body, param] of [
      [{}, 'amount'],
      [{ amount: 1, items: [{ description: 'x', unit_amount: 1 }] }, 'amount'],
      [{ amount: 1, success_url: 'javascript:alert(1)' }, 'success_url'],
      [{ amount: 1, locale: 'de' }, 'locale'],
      [{ amount: 1, promotion_code: 'NOPE' }, 'promotion_code'],
      [{ amount: 1, minimum_amount: 5 }, 'minimum_amount'],
      [{ amount: 1, customer: 'cus_missing' }, 'customer'],
      [{ amount: 1, bogus: 1 }, 'bogus'],
    ] as const) {
      const r = await post('/v1/checkout/sessions', body);
      expect([r.status, r.body.error.param]).toEqual([400, param]);
    }
  });

  test('form field labels (decision 0203): stored and echoed in is and en, through a payment link too; bad labels are a 400 naming the param and create nothing', async () => {
    // A merchant of its own, so that "nothing created" is an empty list.
    const own = await stack.merchant('Merkimiðar ehf.');
    const list = async () =>
      (await stack.api(own.testKey, '/v1/checkout/sessions?limit=100')).body.data as unknown[];
    const field = (label: unknown) => ({ name: 'company_size', type: 'text', required: false, label });
    const bad: [unknown[], string, string][] = [
      [[field({ is: 'x'.repeat(51) })], 'form_fields.0.label.is', 'parameter_invalid'],
      [[field({ en: '' })], 'form_fields.0.label.en', 'parameter_invalid'],
      [[field({ en: '   ' })], 'form_fields.0.label.en', 'parameter_invalid'],
      [[field({ is: 'Stærð\nfyrirtækis' })], 'form_fields.0.label.is', 'parameter_invalid'],
      [[field({ is: 42 })], 'form_fields.0.label.is', 'parameter_invalid'],
      [[field({ en: ['Size'] })], 'form_fields.0.label.en', 'parameter_invalid'],
      [[field({ is: 'Stærð', fr: 'Taille' })], 'form_fields.0.label.fr', 'parameter_unknown'],
      [[field({ custom: 'Size', type: 'custom' })], 'form_fields.0.label.custom', 'parameter_unknown'],
      [[field('Company size')], 'form_fields.0.label', 'parameter_invalid'],
      [[field({})], 'form_fields.0.label', 'parameter_invalid'],
      [[field({ is: null, en: null })], 'form_fields.0.label', 'parameter_invalid'],
      [
        [field({ is: 'Stærð' }), { ...field({ en: 'x'.repeat(51) }), name: 'b' }],
        'form_fields.1.label.en',
        'parameter_invalid',
      ],
    ];
    const seen = [];
    for (const [form_fields, param] of bad) {
      const r = await stack.api(own.testKey, '/v1/checkout/sessions', {
        method: 'POST',
        json: { amount: 1000, form_fields },
      });
      seen.push([r.status, r.body.error?.type, r.body.error?.param, r.body.error?.code]);
      expect(r.body.error.message).toContain(param);
    }
    expect(seen).toEqual(bad.map(([, param, code]) => [400, 'invalid_request_error', param, code]));
    // The same rules hold for a payment link's template.
    const link = await stack.api(own.testKey, '/v1/payment-links', {
      method: 'POST',
      json: { amount: 1000, form_fields: [field({ en: '' })] },
    });
    expect([link.status, link.body.error.param]).toEqual([400, 'form_fields.0.label.en']);
    expect(await list()).toEqual([]);
    expect((await stack.api(own.testKey, '/v1/payment-links')).body.data).toEqual([]);

    const fields = [
      { name: 'email', type: 'email', required: true, label: { is: 'Netfang fyrir kvittun' } },
      field({ is: 'Stærð fyrirtækis', en: 'Company size' }),
      { name: 'gift', type: 'text', required: false, label: { en: 'Gift message', is: null } },
      { name: 'order_ref', type: 'text', required: false, label: null },
      { name: 'note', type: 'text', required: 'false' },
    ];
    const echoed = [
      { name: 'email', type: 'email', required: true, label: { is: 'Netfang fyrir kvittun', en: null } },
      {
        name: 'company_size',
        type: 'text',
        required: false,
        label: { is: 'Stærð fyrirtækis', en: 'Company size' },
      },
      { name: 'gift', type: 'text', required: false, label: { is: null, en: 'Gift message' } },
      { name: 'order_ref', type: 'text', required: false, label: null },
      { name: 'note', type: 'text', required: false, label: null },
    ];
    const created = session(
      (
        await stack.api(own.testKey, '/v1/checkout/sessions', {
          method: 'POST',
          json: { amount: 1000, form_fields: fields },
        })
      ).body,
    );
    expect(created.form_fields).toEqual(echoed);
    const read = session((await stack.api(own.testKey, `/v1/checkout/sessions/${created.id}`)).body);
    expect(read.form_fields).toEqual(echoed);
    // What a session echoes can be sent again as it is.
    const again = session(
      (
        await stack.api(own.testKey, '/v1/checkout/sessions', {
          method: 'POST',
          json: { amount: 1000, form_fields: echoed },
        })
      ).body,
    );
    expect(again.form_fields).toEqual(echoed);

    const linked = await stack.api(own.testKey, '/v1/payment-links', {
      method: 'POST',
      json: { amount: 1000, form_fields: fields },
    });
    expect(linked.status).toBe(200);
    const visit = await fetch(linked.body.url, { redirect: 'manual' });
    const fromLink = (visit.headers.get('location') ?? '').split('/checkout/')[1]!;
    expect(
      session((await stack.api(own.testKey, `/v1/checkout/sessions/${fromLink}`)).body).form_fields,
    ).toEqual(echoed);
  });

  test('expiry: lazily on read, and by the periodic sweep; an expired session cannot be paid', async () => {
    const a = session((await post('/v1/checkout/sessions', { amount: 100 })).body);
    const b = session((await post('/v1/checkout/sessions', { amount: 100 })).body);
    await stack
      .knex('checkout_sessions')
      .whereIn('id', [a.id, b.id])
      .update({ expires_at: new Date(Date.now() - 1000) });
    expect(session((await stack.api(m.testKey, `/v1/checkout/sessions/${a.id}`)).body).status).toBe(
      'expired',
    );
    const swept = await createCheckoutActivities({
      sessionExpiry: createSessionExpiry({ knex: stack.knex }),
    }).expireCheckoutSessions();
    expect(swept).toBeGreaterThanOrEqual(1);
    expect((await stack.knex('checkout_sessions').where({ id: b.id }).first()).status).toBe('expired');
    const paid = await submit(b.url, {
      action: 'pay',
      f_name: 'A',
      f_email: 'a@b.is',
      ...card('4242424242424242'),
    });
    expect(paid.status).toBe(410);
    expect(session((await stack.api(m.testKey, `/v1/checkout/sessions/${b.id}`)).body)).toMatchObject({
      status: 'expired',
      payment_status: 'unpaid',
      payment_intent: null,
    });
  });
});

describe('paying through the hosted form', () => {
  test('success redirects to success_url with the id; concurrent submissions pay once', async () => {
    const s = session(
      (
        await post('/v1/checkout/sessions', {
          amount: 2000,
          success_url: 'https://shop.is/done/{CHECKOUT_SESSION_ID}',
        })
      ).body,
    );
    const form = {
      action: 'pay',
      f_name: 'Anna',
      f_email: 'anna@example.is',
      ...card('4242 4242 4242 4242'),
    };
    const results = await Promise.all(Array.from({ length: 5 }, () => submit(s.url, form)));
    expect(results.map((r) => [r.status, r.location])).toEqual(
      Array(5).fill([303, `https://shop.is/done/${s.id}`]),
    );
    const done = session((await stack.api(m.testKey, `/v1/checkout/sessions/${s.id}`)).body);
    expect(done).toMatchObject({
      status: 'complete',
      payment_status: 'paid',
      customer_name: 'Anna',
      customer_email: 'anna@example.is',
      custom_fields: null,
    });
    const intents = await stack.knex('payment_intents').where({ checkout_session_id: s.id });
    expect(intents).toHaveLength(1);
    expect(intents[0]).toMatchObject({
      status: 'succeeded',
      amount_captured: 2000,
      fee_amount: 30,
      attempt_count: 1,
    });
    const events = await stack
      .knex('events')
      .where({ merchant_id: m.id })
      .whereRaw("data->>'id' in (?, ?)", [s.id, intents[0].id]);
    expect(events.map((e) => e.type).sort()).toEqual([
      'checkout.session.completed',
      'payment_intent.captured',
    ]);
  });

  test('a decline shows the message and leaves the session open/unpaid; missing fields are named', async () => {
    const s = session((await post('/v1/checkout/sessions', { amount: 1500 })).body);
    const declined = await submit(s.url, {
      action: 'pay',
      f_name: 'B',
      f_email: 'b@example.is',
      ...card('4000000000009995'),
    });
    expect(declined.status).toBe(402);
    expect(declined.text).toContain('Your card has insufficient funds.');
    const missing = await submit(s.url, {
      action: 'pay',
      f_name: '',
      f_email: 'bad',
      ...card('4242424242424242'),
    });
    expect(missing.status).toBe(402);
    expect(missing.text).toContain('Not a valid email address');
    // §2.1: `payment_intent` is the intent "created once payment completes" (decision 0204), so an
    // open session shows none after a declined card; the attempt is the intent's, found by session.
    const after = session((await stack.api(m.testKey, `/v1/checkout/sessions/${s.id}`)).body);
    expect(after).toMatchObject({ status: 'open', payment_status: 'unpaid', payment_intent: null });
    const ofSession = async () =>
      (await stack.api(m.testKey, '/v1/payment-intents?limit=100')).body.data.filter(
        (pi: { checkout_session: string | null }) => pi.checkout_session === s.id,
      );
    const attempted = await ofSession();
    expect(attempted).toHaveLength(1);
    expect(attempted[0]).toMatchObject({
      status: 'requires_payment_method',
      last_payment_error: { decline_code: 'insufficient_funds' },
    });
    const since = new Date(Date.now() - 1000).toISOString();
    const paid = await submit(s.url, {
      action: 'pay',
      f_name: 'B',
      f_email: 'b@example.is',
      ...card('4242424242424242'),
    });
    expect(paid.status).toBe(200);
    const done = session((await stack.api(m.testKey, `/v1/checkout/sessions/${s.id}`)).body);
    expect(done).toMatchObject({
      status: 'complete',
      payment_status: 'paid',
      payment_intent: attempted[0].id,
    });
    const captured = await stack.api(m.testKey, `/v1/payment-intents/${done.payment_intent}`);
    expect(captured.body).toMatchObject({
      status: 'succeeded',
      amount_received: 1500,
      checkout_session: s.id,
    });
    expect(await ofSession()).toHaveLength(1);
    const completed = await stack.api(m.testKey, `/v1/events?limit=100&after=${since}`);
    const event = completed.body.data.find(
      (e: { type: string; data: { id: string } }) =>
        e.type === 'checkout.session.completed' && e.data.id === s.id,
    );
    expect(event.data.payment_intent).toBe(done.payment_intent);
  });

  test('pay what you want with a minimum; custom fields; a wallet payment', async () => {
    const s = session(
      (
        await post('/v1/checkout/sessions', {
          allow_custom_amount: true,
          minimum_amount: 500,
          form_fields: [
            { name: 'email', type: 'email', required: true },
            { name: 'message', type: 'text', required: false },
          ],
        })
      ).body,
    );
    expect(s).toMatchObject({ allow_custom_amount: true, minimum_amount: 500, amount: 500 });
    const low = await submit(s.url, {
      action: 'pay',
      custom_amount: '499',
      f_email: 'c@example.is',
      ...card('4242424242424242'),
    });
    expect(low.status).toBe(402);
    const ok = await submit(s.url, {
      action: 'wallet:google_pay',
      custom_amount: '2.500',
      f_email: 'c@example.is',
      f_message: 'Takk!',
    });
    expect(ok.status).toBe(200); // no success_url: our own confirmation page
    const done = session((await stack.api(m.testKey, `/v1/checkout/sessions/${s.id}`)).body);
    expect(done).toMatchObject({
      status: 'complete',
      payment_status: 'paid',
      amount: 2500,
      amount_subtotal: 2500,
      custom_fields: { message: 'Takk!' },
    });
    const pi = await stack.api(m.testKey, `/v1/payment-intents/${done.payment_intent}`);
    expect(pi.body.payment_method_details.card).toMatchObject({
      wallet: 'google_pay',
      brand: 'visa',
      last4: '4242',
    });
  });

  test('a 100 % discount completes with no_payment_required and counts the code once', async () => {
    const coupon = await post('/v1/coupons', { percent_off: 100, duration: 'once', max_redemptions: 5 });
    await post('/v1/promotion-codes', { coupon: coupon.body.id, code: 'FRITT' });
    const s = session((await post('/v1/checkout/sessions', { amount: 800, promotion_code: 'FRITT' })).body);
    expect(s.amount).toBe(0);
    const r = await submit(s.url, { action: 'pay', f_name: 'D', f_email: 'd@example.is' });
    expect(r.status).toBe(200);
    expect(session((await stack.api(m.testKey, `/v1/checkout/sessions/${s.id}`)).body)).toMatchObject({
      status: 'complete',
      payment_status: 'no_payment_required',
      payment_intent: null,
    });
    expect((await stack.api(m.testKey, `/v1/coupons/${coupon.body.id}`)).body.times_redeemed).toBe(1);
  });

  test('the promotion-code box applies a code on the page', async () => {
    const coupon = await post('/v1/coupons', { amount_off: 300, currency: 'ISK', duration: 'once' });
    await post('/v1/promotion-codes', { coupon: coupon.body.id, code: 'BOX' });
    const s = session((await post('/v1/checkout/sessions', { amount: 1000 })).body);
    const r = await submit(s.url, { action: 'apply_code', promotion_code: 'box' });
    expect(r.status).toBe(200);
    expect(r.text).toContain('data-testid="discount"');
    expect(session((await stack.api(m.testKey, `/v1/checkout/sessions/${s.id}`)).body)).toMatchObject({
      amount: 700,
      discount_amount: 300,
    });
  });
});

describe('saved cards', () => {
  test('save_payment_method and a setup-only checkout attach cards; list, retrieve, default, detach', async () => {
    const cus = (await post('/v1/customers', { name: 'Gunna', email: 'gunna@example.is' })).body;
    const pay = session(
      (await post('/v1/checkout/sessions', { amount: 990, customer: cus.id, save_payment_method: true }))
        .body,
    );
    expect(
      (
        await submit(pay.url, {
          action: 'pay',
          f_name: 'Gunna',
          f_email: 'gunna@example.is',
          ...card('5555555555554444'),
        })
      ).status,
    ).toBe(200);
    const paid = session((await stack.api(m.testKey, `/v1/checkout/sessions/${pay.id}`)).body);
    expect(paid.payment_method).toMatch(/^pm_/);

    const setup = session(
      (await post('/v1/checkout/sessions', { mode: 'setup', customer: cus.id, form_fields: [] })).body,
    );
    expect(setup).toMatchObject({ amount: 0, save_payment_method: true });
    expect((await submit(setup.url, { action: 'pay', ...card('4242424242424242') })).status).toBe(200);
    const saved = session((await stack.api(m.testKey, `/v1/checkout/sessions/${setup.id}`)).body);
    expect(saved).toMatchObject({ status: 'complete', payment_status: 'no_payment_required' });

    const list = await stack.api(m.testKey, `/v1/payment-methods?customer=${cus.id}`);
    expect(list.body.data.map((p: any) => p.card.last4).sort()).toEqual(['4242', '4444']);
    const pm = await stack.api(m.testKey, `/v1/payment-methods/${saved.payment_method}`);
    expect(pm.body).toMatchObject({
      customer: cus.id,
      card: { brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2034 },
    });
    expect(JSON.stringify(await stack.knex('payment_methods').where({ merchant_id: m.id }))).not.toContain(
      '4242424242424242',
    );

    expect((await stack.api(m.testKey, `/v1/customers/${cus.id}`)).body.default_payment_method).toBe(
      paid.payment_method,
    );
    const def = await post(`/v1/customers/${cus.id}/default-payment-method`, {
      payment_method: saved.payment_method,
    });
    expect(def.body.default_payment_method).toBe(saved.payment_method);
    const det = await post(`/v1/payment-methods/${saved.payment_method}/detach`, {});
    expect(det.body.customer).toBeNull();
    expect((await stack.api(m.testKey, `/v1/customers/${cus.id}`)).body.default_payment_method).toBeNull();
    expect((await stack.api(m.testKey, `/v1/payment-methods?customer=${cus.id}`)).body.data).toHaveLength(1);

    // A saved card pays a new payment intent off-session.
    const pi = await post('/v1/payment-intents', {
      amount: 700,
      customer: cus.id,
      payment_method: paid.payment_method,
      confirm: true,
    });
    expect(pi.body).toMatchObject({
      status: 'succeeded',
      amount_received: 700,
      fee_amount: 11,
      net_amount: 689,
    });
  });
});

describe('payment links', () => {
  test('each visit opens a new session; the completion limit deactivates it; links are never deleted', async () => {
    const link = await post('/v1/payment-links', {
      amount: 3000,
      completed_sessions_limit: 1,
      success_url: 'https://shop.is/takk',
    });
    expect(link.status).toBe(200);
    expect(link.body).toMatchObject({
      object: 'payment_link',
      active: true,
      completed_sessions_count: 0,
      url: `${stack.url}/l/${link.body.id}`,
    });
    const visit = async () => {
      const r = await fetch(link.body.url, { redirect: 'manual' });
      return { status: r.status, location: r.headers.get('location') };
    };
    const [v1, v2] = [await visit(), await visit()];
    expect(v1.status).toBe(303);
    expect(v1.location).not.toBe(v2.location);
    const first = await submit(v1.location!, {
      action: 'pay',
      f_name: 'E',
      f_email: 'e@example.is',
      ...card('4242424242424242'),
    });
    expect(first.location).toBe('https://shop.is/takk');
    // The second open session cannot complete past the limit: its hold is released.
    const second = await submit(v2.location!, {
      action: 'pay',
      f_name: 'F',
      f_email: 'f@example.is',
      ...card('4242424242424242'),
    });
    expect(second.status).toBe(402);
    expect(second.text).toContain('no longer available');
    expect(
      (await stack.api(m.testKey, `/v1/payment-links/${link.body.id}`)).body.completed_sessions_count,
    ).toBe(1);
    expect((await visit()).status).toBe(404);

    const del = await stack.api(m.testKey, `/v1/payment-links/${link.body.id}`, { method: 'DELETE' });
    expect([del.status, del.body.error.code]).toEqual([409, 'payment_link_not_deletable']);
    const off = await post(`/v1/payment-links/${link.body.id}`, {
      active: false,
      completed_sessions_limit: null,
    });
    expect(off.body).toMatchObject({ active: false, completed_sessions_limit: null });
    expect((await visit()).status).toBe(404);
  });
});

test('every checkout session response above went through the strict §2.1 schema', () => {
  expect(checked).toBeGreaterThanOrEqual(28);
});

test('the OpenAPI document lists the new operations', async () => {
  const doc = (await stack.api(null, '/v1/openapi.json')).body;
  for (const p of [
    '/v1/checkout/sessions/',
    '/v1/checkout/sessions/{id}',
    '/v1/payment-intents/{id}/capture',
    '/v1/refunds',
    '/v1/payment-methods/{id}/detach',
    '/v1/payment-links',
  ])
    expect(Object.keys(doc.paths)).toContain(p);
});

test('schema covers the spec field list exactly', () => {
  expect(Object.keys(CheckoutSessionSchema.shape)).toEqual(SPEC_FIELDS);
  expect(z.toJSONSchema(CheckoutSessionSchema).required).toEqual(SPEC_FIELDS);
});
