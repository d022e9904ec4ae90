import { randomBytes } from 'node:crypto';
import { startTestStack, type TestStack } from '../helpers/stack';
import { spawnApi, type ApiProcess } from '../helpers/api-process';

// Key guessing is slowed per client address (decision 0226). Two real API processes on one database
// stand for two pods behind one load balancer, which they trust (TRUST_PROXY=loopback): the client's
// address is the one the balancer appended to X-Forwarded-For, whatever the client wrote before it.
// A window of an hour keeps the test from straddling a window's end.
const LIMIT = 20;
let stack: TestStack;
const apis: ApiProcess[] = [];

beforeAll(async () => {
  stack = await startTestStack({ worker: false });
  const env = { TRUST_PROXY: 'loopback', RATE_LIMIT_API_KEY_FAILURES: `${LIMIT}/1h` };
  apis.push(...(await Promise.all([spawnApi(stack, env), spawnApi(stack, env)])));
}, 120_000); // two API processes compiled by tsx at once: past a minute on two busy cores
afterAll(async () => {
  await Promise.all(apis.map((a) => a.stop()));
  await stack.stop();
});

const ATTACKER = '203.0.113.9';

/** A request through the load balancer from `client`, with whatever X-Forwarded-For the client sent itself. */
async function viaBalancer(api: ApiProcess, key: string, client: string, spoofed?: string) {
  const res = await fetch(`${api.url}/v1/customers?limit=1`, {
    headers: {
      authorization: `Bearer ${key}`,
      'x-forwarded-for': spoofed ? `${spoofed}, ${client}` : client,
    },
  });
  return { status: res.status, retryAfter: res.headers.get('retry-after'), body: (await res.json()) as any };
}

const randomLiveKey = () => `sk_live_${randomBytes(24).toString('base64url').replace(/[-_]/g, 'x')}`;
const randomAddress = () => `198.18.${randomBytes(1)[0]}.${randomBytes(1)[0]}`;

test('200 random live keys from one address meet 429 after the limit; a key that authenticated there before still works', async () => {
  const [a, b] = apis as [ApiProcess, ApiProcess];
  const known = await stack.merchant('Known from the address');
  const unseen = await stack.merchant('Never used from the address');
  // The known key authenticates from the attacker's address through process A before the guessing.
  expect((await viaBalancer(a, known.liveKey, ATTACKER)).status).toBe(200);
  // Its sighting is recorded in the background; wait until process B could see it.
  for (let i = 0; ; i++) {
    const seen = await stack.knex('api_key_sightings').where({ address: ATTACKER }).first();
    if (seen) break;
    if (i > 100) throw new Error('the sighting was never recorded');
    await new Promise((r) => setTimeout(r, 20));
  }

  // 200 guesses, alternating between the processes, each naming a different address of its own
  // before the one the balancer appends.
  const statuses: number[] = [];
  const retryAfters: number[] = [];
  for (let i = 0; i < 200; i++) {
    const res = await viaBalancer(i % 2 === 0 ? a : b, randomLiveKey(), ATTACKER, randomAddress());
    statuses.push(res.status);
    if (res.status === 429) {
      retryAfters.push(Number(res.retryAfter));
      expect(res.body.error).toMatchObject({ type: 'rate_limit_error', code: 'rate_limited' });
    } else {
      expect(res.body.error).toMatchObject({ type: 'authentication_error' });
    }
  }
  // Exactly the documented limit is looked up and refused as unknown; every later guess, on either
  // process, is answered 429 without a lookup.
  expect(statuses.slice(0, LIMIT)).toEqual(Array(LIMIT).fill(401));
  expect(statuses.slice(LIMIT)).toEqual(Array(200 - LIMIT).fill(429));
  for (const s of retryAfters) {
    expect(s).toBeGreaterThanOrEqual(1);
    expect(s).toBeLessThanOrEqual(3600);
  }

  // The key seen there goes on working through both processes (B has never seen it itself).
  expect((await viaBalancer(b, known.liveKey, ATTACKER)).status).toBe(200);
  expect((await viaBalancer(a, known.liveKey, ATTACKER)).status).toBe(200);
  // A valid key never used from that address is not looked up either: 429, not 200.
  const refused = await viaBalancer(b, unseen.liveKey, ATTACKER);
  expect(refused.status).toBe(429);
  expect(Number(refused.retryAfter)).toBeGreaterThanOrEqual(1);
  // Another client of the balancer is not held by the attacker's failures.
  expect((await viaBalancer(a, unseen.liveKey, '198.51.100.4')).status).toBe(200);
  expect((await viaBalancer(a, randomLiveKey(), '198.51.100.4')).status).toBe(401);
});

test('guesses sent all at once, to both processes, meet the same limit: exactly the documented number are looked up', async () => {
  const [a, b] = apis as [ApiProcess, ApiProcess];
  const address = '203.0.113.77';
  const answers = await Promise.all(
    Array.from({ length: 100 }, (_, i) => viaBalancer(i % 2 === 0 ? a : b, randomLiveKey(), address)),
  );
  const counts = { 401: 0, 429: 0 } as Record<number, number>;
  for (const r of answers) counts[r.status] = (counts[r.status] ?? 0) + 1;
  expect(counts).toEqual({ 401: LIMIT, 429: 100 - LIMIT });
});
