import { brotliCompressSync, gzipSync } from 'node:zlib';
import { sharedTestStack, type TestMerchant, type TestStack } from '../helpers/stack';

// Issue 16.1: input that used to answer 500 answers 4xx in the envelope, naming what is wrong.

let stack: TestStack;
let merchant: TestMerchant;

beforeAll(async () => {
  // A real base URL: the API reaches the simulated acquirer over HTTP to save a test card.
  stack = await sharedTestStack();
  merchant = await stack.merchant();
});
afterAll(async () => {
  await stack.stop();
});

type Res = { status: number; body: any; text: string };

function expect400(res: Res, code: string, param?: string) {
  expect({ status: res.status, code: res.body?.error?.code, param: res.body?.error?.param }).toEqual({
    status: 400,
    code,
    param,
  });
  expect(res.body.error.type).toBe('invalid_request_error');
}

const post = (path: string, body: string, contentType = 'application/json', key: string | null = null) =>
  stack.api(key ?? merchant.testKey, path, {
    method: 'POST',
    headers: { 'content-type': contentType },
    body,
  });

describe('deeply nested input', () => {
  const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

  test.each([
    ['POST', '/v1/customers', true],
    ['PATCH', '/v1/merchant', true],
    ['POST', '/v1/notification-channels', true],
    ['POST', '/v1/device/authorize', false],
  ])('5,000 levels in a %s %s body is a 400 that says how deep may go', async (method, path, auth) => {
    const res = await stack.api(auth ? merchant.testKey : null, path, {
      method,
      headers: { 'content-type': 'application/json' },
      body: `{"metadata":${nested(5000)}}`,
    });
    expect400(res, 'nesting_too_deep');
    expect(res.body.error.message).toMatch(/32 levels/);
  });

  test('the same body as plain-text JSON, and as a deep multipart field name, is refused the same way', async () => {
    expect400(await post('/v1/customers', `{"metadata":${nested(5000)}}`, 'text/plain'), 'nesting_too_deep');
    const form = new FormData();
    form.append(`metadata${'[a]'.repeat(2000)}`, 'x');
    const res = await stack.api(merchant.testKey, '/v1/customers', { method: 'POST', body: form });
    expect400(res, 'nesting_too_deep');
  });

  test('nesting up to the bound reaches validation as usual', async () => {
    // The body object and 31 arrays: 32 levels, the most allowed.
    const res = await post('/v1/customers', `{"metadata":${nested(31)}}`);
    expect400(res, 'parameter_invalid', 'metadata');
    expect400(await post('/v1/customers', `{"metadata":${nested(32)}}`), 'nesting_too_deep');
  });
});

describe('times out of range', () => {
  test.each([253_402_300_800, 1e12, '999999999999999'])(
    'coupon redeem_by %p is 400 naming redeem_by',
    async (redeemBy) => {
      const res = await stack.api(merchant.testKey, '/v1/coupons', {
        method: 'POST',
        json: { percent_off: 10, redeem_by: redeemBy },
      });
      expect400(res, 'parameter_invalid', 'redeem_by');
    },
  );

  test('checkout subscription_data.trial_end "999999999999999" is 400 naming it', async () => {
    const product = await stack.api(merchant.testKey, '/v1/products', {
      method: 'POST',
      json: { name: 'Áskrift', vat_rate: 24 },
    });
    const price = await stack.api(merchant.testKey, '/v1/prices', {
      method: 'POST',
      json: { product: product.body.id, unit_amount: 1990, recurring: { interval: 'month' } },
    });
    const res = await stack.api(merchant.testKey, '/v1/checkout/sessions', {
      method: 'POST',
      json: {
        mode: 'subscription',
        items: [{ price: price.body.id }],
        subscription_data: { trial_end: '999999999999999' },
      },
    });
    expect400(res, 'parameter_invalid', 'subscription_data.trial_end');
  });
});

describe('text that is not valid Unicode', () => {
  test.each([
    ['metadata', '{"metadata":{"note":"\\ud800"}}', 'metadata.note'],
    ['address', '{"address":{"line1":"a\\udfffb"}}', 'address.line1'],
    ['a name', '{"name":"\\ud800"}', 'name'],
    ['a metadata key', '{"metadata":{"\\udc00":"x"}}', 'metadata'],
  ])('a lone surrogate in %s is 400 naming the field, and nothing is stored', async (_what, body, param) => {
    const before = await stack.api(merchant.testKey, '/v1/customers?limit=100');
    const res = await post('/v1/customers', body);
    expect400(res, 'parameter_invalid', param);
    expect(res.body.error.message).toMatch(/Unicode/);
    const after = await stack.api(merchant.testKey, '/v1/customers?limit=100');
    expect(after.body.data).toHaveLength(before.body.data.length);
  });

  test('paired surrogates (an emoji) are fine', async () => {
    const res = await post('/v1/customers', '{"name":"\\ud83d\\ude00","metadata":{"m":"\\ud83d\\ude00"}}');
    expect(res.status).toBe(200);
    expect(res.body.name).toBe('😀');
  });
});

describe('compressed bodies', () => {
  test.each(['gzip', 'br', 'deflate'])('a corrupt %s body is 400 invalid_body', async (encoding) => {
    const res = await stack.api(merchant.testKey, '/v1/customers', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-encoding': encoding },
      body: 'this is not compressed at all',
    });
    expect400(res, 'invalid_body');
    expect(res.body.error.message).toContain(encoding);
  });

  test('a truncated gzip body is 400 too', async () => {
    const whole = gzipSync(JSON.stringify({ name: 'Jón' }));
    const res = await stack.api(merchant.testKey, '/v1/customers', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: whole.subarray(0, whole.length - 6),
    });
    expect400(res, 'invalid_body');
  });

  test('sound gzip and br bodies are read', async () => {
    for (const [encoding, bytes] of [
      ['gzip', gzipSync(JSON.stringify({ name: 'Jón' }))],
      ['br', brotliCompressSync(JSON.stringify({ name: 'Jón' }))],
    ] as const) {
      const res = await stack.api(merchant.testKey, '/v1/customers', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-encoding': encoding },
        body: bytes,
      });
      expect(res.status).toBe(200);
      expect(res.body.name).toBe('Jón');
    }
  });
});

describe('DELETE /v1/subscriptions/{id}', () => {
  async function subscription() {
    const product = await stack.api(merchant.testKey, '/v1/products', {
      method: 'POST',
      json: { name: 'Áskrift', vat_rate: 24 },
    });
    const price = await stack.api(merchant.testKey, '/v1/prices', {
      method: 'POST',
      json: { product: product.body.id, unit_amount: 2990, recurring: { interval: 'month' } },
    });
    const customer = await stack.api(merchant.testKey, '/v1/customers', {
      method: 'POST',
      json: { name: 'Guðrún' },
    });
    const card = await stack.api(merchant.testKey, '/v1/payment-methods', {
      method: 'POST',
      json: {
        customer: customer.body.id,
        card: { number: '4242 4242 4242 4242', exp_month: 12, exp_year: 2040, cvc: '123' },
      },
    });
    expect(card.status).toBe(200);
    const created = await stack.api(merchant.testKey, '/v1/subscriptions', {
      method: 'POST',
      json: {
        customer: customer.body.id,
        price: price.body.id,
        default_payment_method: card.body.id,
        trial_period_days: 7,
      },
    });
    expect(created.status).toBe(200);
    return created.body.id as string;
  }

  test('with no body it cancels exactly as with {}', async () => {
    const [a, b] = [await subscription(), await subscription()];
    const bare = await stack.api(merchant.testKey, `/v1/subscriptions/${a}`, { method: 'DELETE' });
    const empty = await stack.api(merchant.testKey, `/v1/subscriptions/${b}`, { method: 'DELETE', json: {} });
    expect(bare.status).toBe(200);
    expect(empty.status).toBe(200);
    const shape = (s: any) => ({
      status: s.status,
      canceled: typeof s.canceled_at,
      ended: typeof s.ended_at,
      reason: s.cancellation_reason ?? null,
    });
    expect(shape(bare.body)).toEqual(shape(empty.body));
    expect(bare.body.status).toBe('canceled');
  });
});

describe('401', () => {
  test.each([
    ['a non-ASCII key', 'sk_test_ÞórðurÆvarÖðlingur'],
    ['an ASCII key', 'sk_test_abcdefghijklmnopqrstuvwx1234'],
    ['a key of another shape', 'not-a-key-zyxw'],
  ])('%s is never echoed, not even in part', async (_what, key) => {
    // Sent as its UTF-8 bytes, as curl sends what is typed; the server reads header bytes as Latin-1.
    const sent = Buffer.from(key, 'utf8').toString('latin1');
    const variants: Record<string, string>[] = [{ authorization: `Bearer ${sent}` }, { 'x-api-key': sent }];
    for (const headers of variants) {
      const res = await stack.api(null, '/v1/events', { headers });
      expect(res.status).toBe(401);
      expect(res.body.error.type).toBe('authentication_error');
      for (const tail of [key.slice(-4), sent.slice(-4)]) expect(res.body.error.message).not.toContain(tail);
    }
  });
});
