import { startTestStack, type TestStack, type TestMerchant } from '../helpers/stack';
import { spawnApi, type ApiProcess } from '../helpers/api-process';

// Every API process here is the real entry point, configured through its environment. Windows of an
// hour keep a test from straddling a window's end (fixed windows, aligned to the clock).
let stack: TestStack;
let merchant: TestMerchant;
const started: ApiProcess[] = [];

beforeAll(async () => {
  stack = await startTestStack({ worker: false });
  merchant = await stack.merchant();
});
afterAll(async () => {
  await Promise.all(started.map((a) => a.stop()));
  await stack.stop();
});

async function api(env: Record<string, string>): Promise<ApiProcess> {
  const a = await spawnApi(stack, env);
  started.push(a);
  return a;
}

async function call(base: string, path: string, init: RequestInit & { key?: string } = {}) {
  const headers = new Headers(init.headers);
  if (init.key) headers.set('authorization', `Bearer ${init.key}`);
  const res = await fetch(base + path, { ...init, headers, redirect: 'manual' });
  const text = await res.text();
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: res.status, headers: res.headers, body };
}

function expectLimited(
  res: { status: number; headers: Headers; body: any },
  limit: number,
  windowSeconds: number,
) {
  expect(res.status).toBe(429);
  expect(res.body).toEqual({
    error: { type: 'rate_limit_error', code: 'rate_limited', message: expect.any(String) },
  });
  const retryAfter = Number(res.headers.get('retry-after'));
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(windowSeconds);
  expect(res.headers.get('ratelimit-limit')).toBe(String(limit));
  expect(res.headers.get('ratelimit-remaining')).toBe('0');
  expect(Number(res.headers.get('ratelimit-reset'))).toBe(retryAfter);
  expect(res.headers.get('ratelimit-policy')).toBe(`${limit};w=${windowSeconds}`);
}

test('two API processes on one database share the limit of an API key; health, readiness and metrics are exempt', async () => {
  const env = { RATE_LIMIT_API_TEST: '10/1h', RATE_LIMIT_API_LIVE: '4/1h' };
  const [a, b] = await Promise.all([api(env), api(env)]);
  const remaining: number[] = [];
  for (let i = 0; i < 10; i++) {
    const res = await call(i % 2 === 0 ? a.url : b.url, '/v1/events', { key: merchant.testKey });
    expect(res.status).toBe(200);
    expect(res.headers.get('ratelimit-limit')).toBe('10');
    expect(res.headers.get('ratelimit-policy')).toBe('10;w=3600');
    remaining.push(Number(res.headers.get('ratelimit-remaining')));
  }
  // One count across both processes: 9, 8, …, 0.
  expect(remaining).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
  expectLimited(await call(a.url, '/v1/events', { key: merchant.testKey }), 10, 3600);
  expectLimited(await call(b.url, '/v1/merchant', { key: merchant.testKey }), 10, 3600);

  // Another key has a count of its own, and live keys a limit of their own.
  const live = await call(b.url, '/v1/events', { key: merchant.liveKey });
  expect(live.status).toBe(200);
  expect(live.headers.get('ratelimit-limit')).toBe('4');
  expect(live.headers.get('ratelimit-remaining')).toBe('3');

  for (let i = 0; i < 15; i++) {
    for (const path of ['/health', '/ready', '/metrics']) {
      const res = await call(a.url, path);
      expect(res.status).not.toBe(429);
      expect(res.headers.get('ratelimit-limit')).toBeNull();
    }
  }
});

test('unauthenticated routes are limited per client address; X-Forwarded-For counts only from a trusted proxy', async () => {
  const env = {
    RATE_LIMIT_DEVICE_AUTHORIZE: '3/1h',
    RATE_LIMIT_SIGN_IN: '2/1h',
    RATE_LIMIT_SIGN_UP: '2/1h',
    RATE_LIMIT_PAGES: '5/1h',
  };
  const direct = await api(env);
  const authorize = (base: string, headers: Record<string, string> = {}) =>
    call(base, '/v1/device/authorize', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ client_name: 'skil-cli' }),
    });
  for (let i = 0; i < 3; i++) expect((await authorize(direct.url)).status).toBe(200);
  expectLimited(await authorize(direct.url), 3, 3600);
  // Not behind a trusted proxy: a forwarded address is the client's say-so and changes nothing.
  expectLimited(await authorize(direct.url, { 'x-forwarded-for': '203.0.113.9' }), 3, 3600);

  // Behind a proxy on loopback, the address it forwards is the client's.
  const proxied = await api({ ...env, TRUST_PROXY: 'loopback' });
  const from = (ip: string) => ({ 'x-forwarded-for': ip });
  for (let i = 0; i < 3; i++) expect((await authorize(proxied.url, from('203.0.113.7'))).status).toBe(200);
  expectLimited(await authorize(proxied.url, from('203.0.113.7')), 3, 3600);
  expect((await authorize(proxied.url, from('203.0.113.8'))).status).toBe(200);
  // The address the proxy saw, not what the client wrote before it: the right-most untrusted hop.
  expectLimited(await authorize(proxied.url, from('198.51.100.1, 203.0.113.7')), 3, 3600);

  // Dashboard sign-in, and hosted pages.
  const signIn = () =>
    call(direct.url, '/dashboard/sign-in', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'email=a%40b.is&password=nope',
    });
  for (let i = 0; i < 2; i++) expect((await signIn()).status).not.toBe(429);
  expectLimited(await signIn(), 2, 3600);
  // Merchant sign-up has a count of its own (decision 0115).
  const signUp = () =>
    call(direct.url, '/dashboard/sign-up', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'business_name=A&email=a%40b.is&password=long-enough-password',
    });
  for (let i = 0; i < 2; i++) expect((await signUp()).status).not.toBe(429);
  expectLimited(await signUp(), 2, 3600);
  for (let i = 0; i < 5; i++) expect((await call(direct.url, '/s/nothing-here')).status).not.toBe(429);
  expectLimited(await call(direct.url, '/s/nothing-here'), 5, 3600);
  expectLimited(await call(direct.url, '/portal/nothing-here'), 5, 3600);
});

test('a CLI polling the device token at its poll_interval never gets a 429; one polling too fast gets slow_down, then 429', async () => {
  const a = await api({ DEVICE_POLL_INTERVAL_SECONDS: '1', RATE_LIMIT_DEVICE_TOKEN: '2/1s' });
  const started = await call(a.url, '/v1/device/authorize', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'skil-cli' }),
  });
  expect(started.body.poll_interval).toBe(1);
  const code = encodeURIComponent(started.body.device_code);
  let interval: number = started.body.poll_interval;
  for (let i = 0; i < 6; i++) {
    await new Promise((r) => setTimeout(r, interval * 1000 + 20));
    const res = await call(a.url, `/v1/device/token?device_code=${code}`);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('authorization_pending');
    interval = Number(res.headers.get('retry-after') ?? interval);
  }
  const fast: { status: number; code: string }[] = [];
  for (let i = 0; i < 6; i++) {
    const res = await call(a.url, `/v1/device/token?device_code=${code}`);
    fast.push({ status: res.status, code: res.body.error.code });
  }
  expect(fast[0]).toEqual({ status: 400, code: 'slow_down' });
  expect(fast).toContainEqual({ status: 429, code: 'rate_limited' });
});

test('a token limit too low for the poll interval is refused at start-up', async () => {
  const outcome = await spawnApi(stack, {
    DEVICE_POLL_INTERVAL_SECONDS: '5',
    RATE_LIMIT_DEVICE_TOKEN: '2/1m',
  }).then(
    (a) => {
      started.push(a);
      return 'started';
    },
    (err: Error) => err.message,
  );
  expect(outcome).toMatch(/RATE_LIMIT_DEVICE_TOKEN/);
});
