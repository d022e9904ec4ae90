import { sharedTestStack, type TestStack, type TestMerchant } from '../helpers/stack';
import { WebClient, createMerchantUser, createOperator, type TestUser } from '../helpers/accounts';

let stack: TestStack;
let merchant: TestMerchant;
let user: TestUser;
let web: WebClient;

beforeAll(async () => {
  stack = await sharedTestStack();
  merchant = await stack.merchant('Device merchant');
  user = await createMerchantUser(stack.knex, merchant.id);
  web = new WebClient(stack.url);
  expect((await web.signIn(user.email, user.password)).status).toBe(303);
});
afterAll(async () => {
  await stack.stop();
});

function authorize(json: unknown) {
  return stack.api(null, '/v1/device/authorize', { method: 'POST', json });
}

function poll(deviceCode: string) {
  return stack.api(null, `/v1/device/token?device_code=${encodeURIComponent(deviceCode)}`);
}

/** Moves the last poll back, as if the client had waited that many seconds. */
async function waited(deviceCode: string, seconds: number) {
  const { sha256 } = await import('../../domain/device-codes');
  await stack
    .knex('device_authorizations')
    .where({ device_code_hash: sha256(deviceCode) })
    .update({ last_polled_at: stack.knex.raw(`now() - ? * interval '1 second'`, [seconds]) });
}

async function decide(client: WebClient, userCode: string, decision: 'approve' | 'deny') {
  const page = await client.get(`/device?user_code=${userCode}`);
  expect(page.status).toBe(200);
  return client.post('/device', { user_code: userCode, decision });
}

function expectCode(res: { status: number; body: any }, status: number, code: string) {
  expect(res.status).toBe(status);
  expect(res.body).toEqual({
    error: expect.objectContaining({ type: expect.any(String), message: expect.any(String), code }),
  });
}

describe('POST /v1/device/authorize', () => {
  test('needs no API key and returns the five fields', async () => {
    const res = await authorize({ client_name: 'skil-cli' });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual([
      'device_code',
      'expires_in',
      'poll_interval',
      'user_code',
      'verification_url',
    ]);
    expect(res.body.user_code).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
    expect(res.body.verification_url).toBe(`${stack.url}/device?user_code=${res.body.user_code}`);
    expect(res.body).toMatchObject({ expires_in: 900, poll_interval: 5 });
    expect(res.body.device_code.length).toBeGreaterThanOrEqual(40);
    expect(res.headers.get('cache-control')).toBe('no-store');
    // Only the hash of the device code is stored.
    const rows = await stack.knex('device_authorizations').select('*');
    expect(JSON.stringify(rows)).not.toContain(res.body.device_code);
  });

  const names: [string, boolean, string][] = [
    ['empty', false, ''],
    ['1 character', true, 'a'],
    ['100 characters', true, 'c'.repeat(100)],
    ['101 characters', false, 'c'.repeat(101)],
    ['100 two-byte characters', true, 'é'.repeat(100)],
    ['100 characters in 200 UTF-16 units', true, '🔑'.repeat(100)],
    ['101 astral characters', false, '🔑'.repeat(101)],
  ];
  test.each(names)('client_name of %s: accepted %s', async (_label, ok, clientName) => {
    const res = await authorize({ client_name: clientName });
    if (ok) {
      expect(res.status).toBe(200);
    } else {
      expectCode(res, 400, 'parameter_invalid');
      expect(res.body.error.param).toBe('client_name');
    }
  });

  test('client_name is required and may not hold control or formatting characters', async () => {
    const missing = await authorize({});
    expectCode(missing, 400, 'parameter_missing');
    expect(missing.body.error.param).toBe('client_name');
    for (const bad of ['cli\nApproved by Skil', 'cli\u202egnp.exe', 'a\u0000b']) {
      expect((await authorize({ client_name: bad })).body.error.param).toBe('client_name');
    }
  });

  test('form-encoded bodies work too', async () => {
    const res = await stack.api(null, '/v1/device/authorize', {
      method: 'POST',
      body: new URLSearchParams({ client_name: 'form-cli' }),
    });
    expect(res.status).toBe(200);
  });
});

describe('GET /v1/device/token', () => {
  test('device_code: missing and empty are 400 naming it; one character is a valid query (unknown code)', async () => {
    const missing = await stack.api(null, '/v1/device/token');
    expectCode(missing, 400, 'parameter_missing');
    expect(missing.body.error.param).toBe('device_code');
    const empty = await poll('');
    expectCode(empty, 400, 'parameter_invalid');
    expect(empty.body.error.param).toBe('device_code');
    const one = await poll('x');
    expectCode(one, 400, 'invalid_grant');
    expect(one.body.error.param).toBe('device_code');
  });

  test('authorization_pending, then slow_down when polled faster than poll_interval, which grows by 5 s', async () => {
    const { body } = await authorize({ client_name: 'poller' });
    expectCode(await poll(body.device_code), 400, 'authorization_pending');
    const fast = await poll(body.device_code);
    expectCode(fast, 400, 'slow_down');
    expect(fast.headers.get('retry-after')).toBe('10');
    await waited(body.device_code, 6); // enough for 5 s, not for the new 10 s
    expectCode(await poll(body.device_code), 400, 'slow_down');
    await waited(body.device_code, 16);
    expectCode(await poll(body.device_code), 400, 'authorization_pending');
  });

  test('approved: the next poll returns a new test-mode key once; it authenticates GET /v1/merchant', async () => {
    const { body } = await authorize({ client_name: 'approve-me' });
    expectCode(await poll(body.device_code), 400, 'authorization_pending');
    const page = await web.get(`/device?user_code=${body.user_code}`);
    expect(page.text).toContain('approve-me');
    expect(page.text).toContain(body.user_code);
    const done = await web.post('/device', { user_code: body.user_code, decision: 'approve' });
    expect(done.status).toBe(200);
    expect(done.text).toContain('Approved');

    await waited(body.device_code, 5);
    const token = await poll(body.device_code);
    expect(token.status).toBe(200);
    expect(token.body).toMatchObject({ object: 'device_token', livemode: false, merchant_id: merchant.id });
    expect(token.body.api_key).toMatch(/^sk_test_[0-9A-Za-z]{40}$/);

    const again = await poll(body.device_code);
    expectCode(again, 400, 'invalid_grant');
    expect(again.text).not.toContain(token.body.api_key);

    const me = await stack.api(token.body.api_key, '/v1/merchant');
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ id: merchant.id, livemode: false });
    const rows = await stack.knex('api_keys').where({ id: token.body.key_id });
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows)).not.toContain(token.body.api_key);
  });

  test('an approved code yields exactly one key to concurrent polls', async () => {
    const { body } = await authorize({ client_name: 'racer' });
    await decide(web, body.user_code, 'approve');
    const results = await Promise.all(Array.from({ length: 6 }, () => poll(body.device_code)));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    for (const r of results.filter((x) => x.status !== 200)) expect(r.body.error.code).toBe('invalid_grant');
  });

  test('denied: access_denied, and it stays denied', async () => {
    const { body } = await authorize({ client_name: 'deny-me' });
    const done = await decide(web, body.user_code, 'deny');
    expect(done.text).toContain('Denied');
    expectCode(await poll(body.device_code), 400, 'access_denied');
    expectCode(await poll(body.device_code), 400, 'access_denied');
    // The code cannot be approved afterwards either.
    const page = await web.get(`/device?user_code=${body.user_code}`);
    expect(page.status).toBe(404);
  });

  test('expired: expired_token, and the verification page says so', async () => {
    const { body } = await authorize({ client_name: 'too-late' });
    await stack
      .knex('device_authorizations')
      .where({ user_code: body.user_code.replace('-', '') })
      .update({ expires_at: stack.knex.raw("now() - interval '1 second'") });
    expectCode(await poll(body.device_code), 400, 'expired_token');
    const page = await web.get(`/device?user_code=${body.user_code}`);
    expect(page.status).toBe(410);
    expect(page.text).toContain('expired');
    const post = await web.post('/device', { user_code: body.user_code, decision: 'approve' });
    expect(post.status).toBe(409);
    expectCode(await poll(body.device_code), 400, 'expired_token');
  });
});

describe('verification page', () => {
  test('asks for sign-in first and comes back to the code', async () => {
    const { body } = await authorize({ client_name: 'signin-first' });
    const anon = new WebClient(stack.url);
    const res = await anon.get(`/device?user_code=${body.user_code}`);
    expect(res.status).toBe(303);
    expect(res.location).toBe(
      `/dashboard/sign-in?next=${encodeURIComponent(`/device?user_code=${body.user_code}`)}`,
    );
    await anon.get(res.location!);
    const signedIn = await anon.post('/dashboard/sign-in', {
      email: user.email,
      password: user.password,
      next: `/device?user_code=${body.user_code}`,
    });
    expect(signedIn.location).toBe(`/device?user_code=${body.user_code}`);
  });

  test('accepts the code typed in lower case, with or without the dash', async () => {
    const { body } = await authorize({ client_name: 'typed' });
    const typed = body.user_code.replace('-', ' ').toLowerCase();
    const page = await web.get(`/device?user_code=${encodeURIComponent(typed)}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('typed');
  });

  test('escapes the client name', async () => {
    const { body } = await authorize({ client_name: '<img src=x onerror=alert(1)>"' });
    const page = await web.get(`/device?user_code=${body.user_code}`);
    expect(page.text).not.toContain('<img src=x');
    expect(page.text).toContain('&lt;img src=x onerror=alert(1)&gt;&quot;');
  });

  test('approving needs the CSRF token of the session', async () => {
    const { body } = await authorize({ client_name: 'csrf' });
    await web.get(`/device?user_code=${body.user_code}`);
    const forged = await web.post('/device', {
      user_code: body.user_code,
      decision: 'approve',
      _csrf: 'x'.repeat(32),
    });
    expect(forged.status).toBe(403);
    const crossSite = await web.post(
      '/device',
      { user_code: body.user_code, decision: 'approve' },
      { 'sec-fetch-site': 'cross-site' },
    );
    expect(crossSite.status).toBe(403);
    expectCode(await poll(body.device_code), 400, 'authorization_pending');
  });

  test('an operator cannot approve a device (no merchant to give a key for)', async () => {
    const op = await createOperator(stack.knex);
    const opWeb = new WebClient(stack.url);
    await opWeb.signIn(op.email, op.password);
    const { body } = await authorize({ client_name: 'op' });
    expect((await opWeb.get(`/device?user_code=${body.user_code}`)).status).toBe(403);
  });

  test("the key belongs to the approving user's merchant, never another", async () => {
    const other = await stack.merchant('Other merchant');
    const otherUser = await createMerchantUser(stack.knex, other.id);
    const otherWeb = new WebClient(stack.url);
    await otherWeb.signIn(otherUser.email, otherUser.password);
    const { body } = await authorize({ client_name: 'tenancy' });
    await decide(otherWeb, body.user_code, 'approve');
    const token = await poll(body.device_code);
    expect(token.body.merchant_id).toBe(other.id);
    expect((await stack.api(token.body.api_key, '/v1/merchant')).body.id).toBe(other.id);
  });
});
