import { sharedTestStack, type TestStack, type TestMerchant } from '../helpers/stack';
import { createTestClockRepository } from '../../db/test-clocks';

let stack: TestStack;
let merchant: TestMerchant;

beforeAll(async () => {
  stack = await sharedTestStack();
  merchant = await stack.merchant('Customers');
});
afterAll(async () => {
  await stack.stop();
});

const api = (path: string, init?: RequestInit & { json?: unknown }) =>
  stack.api(merchant.testKey, path, init);
const post = (path: string, json: unknown) => api(path, { method: 'POST', json });
const patch = (path: string, json: unknown) => api(path, { method: 'PATCH', json });
const inDays = (days: number) => Math.floor(Date.now() / 1000) + days * 86_400;

function expectParam(res: { status: number; body: any; text: string }, param: string, status = 400) {
  expect(res.status).toBe(status);
  expect(res.body.error).toMatchObject({ type: 'invalid_request_error', param });
  expect(res.text).not.toMatch(/\n\s+at /);
}

describe('customers', () => {
  test('create, retrieve, update (null clears), delete', async () => {
    const created = await post('/v1/customers', {
      name: 'Jón Jónsson',
      email: 'Jon@Example.is',
      phone: '+354 555 1234',
      kennitala: '1201603389',
      description: 'VIP',
      address: { line1: 'Laugavegur 1', postal_code: '101', city: 'Reykjavík', country: 'is' },
      metadata: { crm: '42' },
    });
    expect(created.status).toBe(200);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^cus_[0-9A-Za-z]{24}$/),
      object: 'customer',
      livemode: false,
      name: 'Jón Jónsson',
      email: 'Jon@Example.is',
      phone: '+354 555 1234',
      kennitala: '1201603389',
      description: 'VIP',
      address: { line1: 'Laugavegur 1', line2: null, postal_code: '101', city: 'Reykjavík', country: 'IS' },
      // A person's kennitala, not marked business: a consumer, no Peppol e-invoices (decision 0210).
      business: false,
      gln: null,
      peppol_id: null,
      einvoice: false,
      invoice_settings: { delivery_method: 'none' },
      default_payment_method: null,
      test_clock: null,
      warnings: [],
      metadata: { crm: '42' },
      created_at: expect.any(Number),
      updated_at: expect.any(Number),
    });
    expect((await api(`/v1/customers/${created.body.id}`)).body).toEqual(created.body);

    const updated = await patch(`/v1/customers/${created.body.id}`, {
      phone: null,
      address: null,
      name: 'Jón',
    });
    expect(updated.body).toMatchObject({ phone: null, address: null, name: 'Jón', email: 'Jon@Example.is' });

    const deleted = await api(`/v1/customers/${created.body.id}`, { method: 'DELETE' });
    expect(deleted.body).toEqual({ id: created.body.id, object: 'customer', deleted: true });
    expectParam(await api(`/v1/customers/${created.body.id}`), 'id', 404);
    expect((await api('/v1/customers?limit=100')).body.data.map((c: any) => c.id)).not.toContain(
      created.body.id,
    );
  });

  test('a kennitala failing only the check digit is accepted with a warning', async () => {
    const res = await post('/v1/customers', { kennitala: '2811913049' });
    expect(res.status).toBe(200);
    expect(res.body.warnings).toEqual([
      expect.objectContaining({ code: 'kennitala_check_digit', param: 'kennitala' }),
    ]);
  });

  test('search by e-mail (any case) and by kennitala', async () => {
    const a = (await post('/v1/customers', { email: 'anna@example.is', kennitala: '3108962099' })).body;
    const b = (await post('/v1/customers', { email: 'ANNA@example.is' })).body;
    await post('/v1/customers', { email: 'bjorn@example.is' });
    const byEmail = await api('/v1/customers?email=Anna@Example.IS');
    expect(byEmail.body.data.map((c: any) => c.id)).toEqual([b.id, a.id]);
    const byKennitala = await api('/v1/customers?kennitala=3108962099');
    expect(byKennitala.body.data.map((c: any) => c.id)).toEqual([a.id]);
    expectParam(await api('/v1/customers?kennitala=310896'), 'kennitala');
    expect((await stack.api(merchant.liveKey, '/v1/customers?email=anna@example.is')).body.data).toEqual([]);
  });

  test.each<[string, Record<string, unknown>, string]>([
    ['a kennitala with a bad date', { kennitala: '3202603389' }, 'kennitala'],
    ['a kennitala with a hyphen', { kennitala: '120160-3389' }, 'kennitala'],
    ['a nine-digit kennitala', { kennitala: '120160338' }, 'kennitala'],
    ['a bad e-mail', { email: 'not-an-email' }, 'email'],
    ['a long phone', { phone: '1'.repeat(51) }, 'phone'],
    ['a three-letter country', { address: { country: 'ISL' } }, 'address.country'],
    ['an unknown address field', { address: { street: 'x' } }, 'address.street'],
    ['a name with a line break', { name: 'a\nb' }, 'name'],
    [
      'a default payment method (none exist yet)',
      { default_payment_method: 'pm_1' },
      'default_payment_method',
    ],
  ])('%s is a 400 naming the param', async (_name, body, param) => {
    expectParam(await post('/v1/customers', body), param);
  });

  test('NUL characters are a 400 or a 404, never a 500', async () => {
    expectParam(await post('/v1/customers', { description: '\u0000' }), 'description');
    expectParam(await api('/v1/customers?email=%00'), 'email');
    expectParam(await api('/v1/customers/%00'), 'id', 404);
    expectParam(await api('/v1/coupons/%00'), 'id', 404);
    expectParam(await api('/v1/promotion-codes/%00'), 'id', 404);
    expectParam(await api('/v1/promotion-codes?code=%00'), 'code');
    expectParam(await post('/v1/coupons', { percent_off: 5, name: 'a\u0000' }), 'name');
  });

  test('a test-mode customer binds to a test clock of the same merchant; live keys cannot', async () => {
    const clocks = createTestClockRepository(stack.knex);
    const clock = await clocks.create(
      { merchantId: merchant.id, livemode: false },
      { frozenTime: new Date() },
    );
    const bound = await post('/v1/customers', { name: 'Clocked', test_clock: clock.id });
    expect(bound.body.test_clock).toBe(clock.id);
    expect((await api(`/v1/customers?test_clock=${clock.id}`)).body.data.map((c: any) => c.id)).toEqual([
      bound.body.id,
    ]);
    expectParam(await patch(`/v1/customers/${bound.body.id}`, { test_clock: clock.id }), 'test_clock');

    const live = await stack.api(merchant.liveKey, '/v1/customers', {
      method: 'POST',
      json: { test_clock: clock.id },
    });
    expectParam(live, 'test_clock');
    expectParam(await post('/v1/customers', { test_clock: 'clock_missing' }), 'test_clock');
    const other = await stack.merchant('Other clock owner');
    const foreign = await clocks.create(
      { merchantId: other.id, livemode: false },
      { frozenTime: new Date() },
    );
    expectParam(await post('/v1/customers', { test_clock: foreign.id }), 'test_clock');

    // A deleted clock can no longer take customers.
    const doomed = await clocks.create(
      { merchantId: merchant.id, livemode: false },
      { frozenTime: new Date() },
    );
    expect((await api(`/v1/test_helpers/test_clocks/${doomed.id}`, { method: 'DELETE' })).status).toBe(200);
    expectParam(await post('/v1/customers', { test_clock: doomed.id }), 'test_clock');
  });

  test('tenancy: a live customer is a 404 with a hint to the test key', async () => {
    const live = await stack.api(merchant.liveKey, '/v1/customers', { method: 'POST', json: { name: 'L' } });
    expect(live.body.livemode).toBe(true);
    const res = await api(`/v1/customers/${live.body.id}`);
    expectParam(res, 'id', 404);
    expect(res.body.error.message).toContain('exists in live mode');
  });
});

describe('coupons', () => {
  test('percent and amount coupons with each duration round-trip', async () => {
    // One timestamp for request and expectation: two calls to inDays can straddle a second.
    const redeemBy = inDays(30);
    const pct = await post('/v1/coupons', {
      name: 'Sumar',
      percent_off: 12.5,
      duration: 'repeating',
      duration_in_months: 3,
      max_redemptions: 100,
      redeem_by: redeemBy,
      metadata: { campaign: 'summer' },
    });
    expect(pct.status).toBe(200);
    expect(pct.body).toMatchObject({
      object: 'coupon',
      livemode: false,
      name: 'Sumar',
      percent_off: 12.5,
      amount_off: null,
      currency: null,
      duration: 'repeating',
      duration_in_months: 3,
      duration_in_periods: null,
      max_redemptions: 100,
      times_redeemed: 0,
      redeem_by: redeemBy,
      applies_to: null,
      valid: true,
      metadata: { campaign: 'summer' },
    });
    expect(pct.body.id).toMatch(/^coupon_/);

    const amt = await post('/v1/coupons', {
      amount_off: '1500',
      currency: 'isk',
      duration: 'repeating',
      duration_in_periods: 2,
    });
    expect(amt.body).toMatchObject({
      amount_off: 1500,
      currency: 'ISK',
      percent_off: null,
      duration_in_periods: 2,
    });
    const forever = await post('/v1/coupons', { percent_off: '5', duration: 'forever' });
    expect(forever.body).toMatchObject({ percent_off: 5, duration: 'forever' });
    const once = await post('/v1/coupons', { percent_off: 100 });
    expect(once.body.duration).toBe('once');

    expect((await api(`/v1/coupons/${pct.body.id}`)).body).toEqual(pct.body);
    const list = await api('/v1/coupons?limit=3');
    expect(list.body.data.map((c: any) => c.id)).toEqual([once.body.id, forever.body.id, amt.body.id]);
    expect(list.body.has_more).toBe(true);

    const renamed = await patch(`/v1/coupons/${pct.body.id}`, { name: 'Sumar 2026', metadata: {} });
    expect(renamed.body).toMatchObject({ name: 'Sumar 2026', metadata: {}, percent_off: 12.5 });
    expectParam(await patch(`/v1/coupons/${pct.body.id}`, { percent_off: 50 }), 'percent_off');
  });

  test('restriction to products is validated against the catalog of the same mode', async () => {
    const prod = (await post('/v1/products', { name: 'Bók' })).body;
    const ok = await post('/v1/coupons', { amount_off: 500, applies_to: { products: [prod.id, prod.id] } });
    expect(ok.body.applies_to).toEqual({ products: [prod.id] });
    expectParam(
      await post('/v1/coupons', { amount_off: 500, applies_to: { products: [prod.id, 'prod_x'] } }),
      'applies_to.products.1',
    );
    const live = (
      await stack.api(merchant.liveKey, '/v1/products', { method: 'POST', json: { name: 'Live' } })
    ).body;
    expectParam(
      await post('/v1/coupons', { amount_off: 500, applies_to: { products: [live.id] } }),
      'applies_to.products.0',
    );
  });

  test.each<[string, Record<string, unknown>, string]>([
    ['neither percent nor amount', { duration: 'once' }, 'percent_off'],
    ['both percent and amount', { percent_off: 10, amount_off: 100 }, 'amount_off'],
    ['0 percent', { percent_off: 0 }, 'percent_off'],
    ['100.5 percent', { percent_off: 100.5 }, 'percent_off'],
    ['three decimals', { percent_off: 12.345 }, 'percent_off'],
    ['a percentage as words', { percent_off: 'ten' }, 'percent_off'],
    ['a fractional amount', { amount_off: 99.5 }, 'amount_off'],
    ['a zero amount', { amount_off: 0 }, 'amount_off'],
    ['currency with a percentage', { percent_off: 10, currency: 'ISK' }, 'currency'],
    ['another currency', { amount_off: 10, currency: 'USD' }, 'currency'],
    ['repeating without a length', { percent_off: 10, duration: 'repeating' }, 'duration_in_months'],
    [
      'repeating with both lengths',
      { percent_off: 10, duration: 'repeating', duration_in_months: 1, duration_in_periods: 1 },
      'duration_in_periods',
    ],
    ['once with months', { percent_off: 10, duration: 'once', duration_in_months: 2 }, 'duration_in_months'],
    [
      'forever with periods',
      { percent_off: 10, duration: 'forever', duration_in_periods: 2 },
      'duration_in_periods',
    ],
    ['an unknown duration', { percent_off: 10, duration: 'sometimes' }, 'duration'],
    ['redeem_by in the past', { percent_off: 10, redeem_by: inDays(-1) }, 'redeem_by'],
    ['redeem_by as a date string', { percent_off: 10, redeem_by: '2027-01-01' }, 'redeem_by'],
    ['max_redemptions 0', { percent_off: 10, max_redemptions: 0 }, 'max_redemptions'],
    ['empty applies_to', { percent_off: 10, applies_to: { products: [] } }, 'applies_to.products'],
  ])('%s is a 400 naming the param', async (_name, body, param) => {
    expectParam(await post('/v1/coupons', body), param);
  });

  test('deleting a coupon deactivates its promotion codes', async () => {
    const coupon = (await post('/v1/coupons', { percent_off: 10 })).body;
    const code = (await post('/v1/promotion-codes', { coupon: coupon.id, code: 'BYEBYE' })).body;
    const deleted = await api(`/v1/coupons/${coupon.id}`, { method: 'DELETE' });
    expect(deleted.body).toEqual({ id: coupon.id, object: 'coupon', deleted: true });
    expectParam(await api(`/v1/coupons/${coupon.id}`), 'id', 404);
    expect((await api(`/v1/promotion-codes/${code.id}`)).body.active).toBe(false);
    const reactivate = await patch(`/v1/promotion-codes/${code.id}`, { active: true });
    expect(reactivate.status).toBe(409);
    expect(reactivate.body.error).toMatchObject({ code: 'coupon_deleted', param: 'active' });
    expectParam(await post('/v1/promotion-codes', { coupon: coupon.id }), 'coupon');
  });
});

describe('promotion codes', () => {
  let coupon: any;
  let customer: any;
  beforeAll(async () => {
    coupon = (await post('/v1/coupons', { percent_off: 20, redeem_by: inDays(60) })).body;
    customer = (await post('/v1/customers', { email: 'promo@example.is' })).body;
  });

  test('create with every restriction, retrieve, list, find by code in any case', async () => {
    const expiresAt = inDays(10);
    const created = await post('/v1/promotion-codes', {
      coupon: coupon.id,
      code: 'Vor2026',
      customer: customer.id,
      expires_at: expiresAt,
      max_redemptions: 5,
      restrictions: { first_time_transaction: true, minimum_amount: 5000, minimum_amount_currency: 'ISK' },
      metadata: { channel: 'newsletter' },
    });
    expect(created.status).toBe(200);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^promo_/),
      object: 'promotion_code',
      livemode: false,
      code: 'Vor2026',
      coupon: coupon.id,
      active: true,
      customer: customer.id,
      expires_at: expiresAt,
      max_redemptions: 5,
      times_redeemed: 0,
      restrictions: { first_time_transaction: true, minimum_amount: 5000, minimum_amount_currency: 'ISK' },
      metadata: { channel: 'newsletter' },
      created_at: expect.any(Number),
      updated_at: expect.any(Number),
    });
    expect((await api(`/v1/promotion-codes/${created.body.id}`)).body).toEqual(created.body);
    const found = await api('/v1/promotion-codes?code=VOR2026');
    expect(found.body.data.map((p: any) => p.id)).toEqual([created.body.id]);
    const byCoupon = await api(`/v1/promotion-codes?coupon=${coupon.id}&customer=${customer.id}&active=true`);
    expect(byCoupon.body.data.map((p: any) => p.id)).toContain(created.body.id);
  });

  test('a code is generated when omitted', async () => {
    const res = await post('/v1/promotion-codes', { coupon: coupon.id });
    expect(res.body.code).toMatch(/^[A-Z0-9]{8}$/);
    expect(res.body.restrictions).toEqual({
      first_time_transaction: false,
      minimum_amount: null,
      minimum_amount_currency: null,
    });
  });

  test('codes are unique among active codes, ignoring case; deactivation frees the text', async () => {
    const first = await post('/v1/promotion-codes', { coupon: coupon.id, code: 'HAUST' });
    expect(first.status).toBe(200);
    const clash = await post('/v1/promotion-codes', { coupon: coupon.id, code: 'haust' });
    expect(clash.status).toBe(409);
    expect(clash.body.error).toMatchObject({ code: 'promotion_code_exists', param: 'code' });

    const off = await patch(`/v1/promotion-codes/${first.body.id}`, { active: false });
    expect(off.body.active).toBe(false);
    const second = await post('/v1/promotion-codes', { coupon: coupon.id, code: 'Haust' });
    expect(second.status).toBe(200);
    const back = await patch(`/v1/promotion-codes/${first.body.id}`, { active: true });
    expect(back.status).toBe(409);
    expect(back.body.error).toMatchObject({ code: 'promotion_code_exists', param: 'active' });
    // The same text in live mode is another namespace.
    const liveCoupon = (
      await stack.api(merchant.liveKey, '/v1/coupons', { method: 'POST', json: { percent_off: 5 } })
    ).body;
    const live = await stack.api(merchant.liveKey, '/v1/promotion-codes', {
      method: 'POST',
      json: { coupon: liveCoupon.id, code: 'HAUST' },
    });
    expect(live.status).toBe(200);
  });

  test('concurrent creation of one code in two cases: exactly one wins', async () => {
    const results = await Promise.all(
      ['JOL', 'jol', 'Jol', 'jOL'].map((code) => post('/v1/promotion-codes', { coupon: coupon.id, code })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 409, 409, 409]);
  });

  test.each<[string, Record<string, unknown>, string]>([
    ['a missing coupon', {}, 'coupon'],
    ['an unknown coupon', { coupon: 'coupon_nope' }, 'coupon'],
    ['a code with a space', { coupon: 'COUPON', code: 'SUMAR 25' }, 'code'],
    ['a code with a non-ASCII letter', { coupon: 'COUPON', code: 'ÞORRI' }, 'code'],
    ['an unknown customer', { coupon: 'COUPON', customer: 'cus_nope' }, 'customer'],
    ['expires_at in the past', { coupon: 'COUPON', expires_at: inDays(-1) }, 'expires_at'],
    ["expires_at after the coupon's redeem_by", { coupon: 'COUPON', expires_at: inDays(61) }, 'expires_at'],
    [
      'a negative minimum amount',
      { coupon: 'COUPON', restrictions: { minimum_amount: -5 } },
      'restrictions.minimum_amount',
    ],
    [
      'an unknown restriction',
      { coupon: 'COUPON', restrictions: { per_customer: 1 } },
      'restrictions.per_customer',
    ],
    ['max_redemptions 0', { coupon: 'COUPON', max_redemptions: 0 }, 'max_redemptions'],
  ])('%s is a 400 naming the param', async (_name, body, param) => {
    const json = { ...body, ...(body.coupon === 'COUPON' && { coupon: coupon.id }) };
    expectParam(await post('/v1/promotion-codes', json), param);
  });

  test('only active and metadata change after creation', async () => {
    const code = (await post('/v1/promotion-codes', { coupon: coupon.id })).body;
    expectParam(await patch(`/v1/promotion-codes/${code.id}`, { code: 'OTHER' }), 'code');
    expectParam(await patch(`/v1/promotion-codes/${code.id}`, { max_redemptions: 9 }), 'max_redemptions');
    const meta = await patch(`/v1/promotion-codes/${code.id}`, { metadata: { a: 'b' } });
    expect(meta.body.metadata).toEqual({ a: 'b' });
    expectParam(await api('/v1/promotion-codes/promo_nope'), 'id', 404);
  });
});
