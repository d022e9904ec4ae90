import { sharedTestStack, type TestStack, type TestMerchant } from '../helpers/stack';
import { WebClient, createMerchantUser } from '../helpers/accounts';

/**
 * Done-means 4 of the merchant-accounts issue: no endpoint lets one merchant read or change
 * another's data, with either key kind. Merchant A is set up fully; merchant B then calls every
 * merchant endpoint with each of its keys, including attempts to name A, and A must be untouched
 * and never appear in B's answers.
 */

let stack: TestStack;
let a: TestMerchant;
let b: TestMerchant;

const A_PROFILE = {
  name: 'Alpha hf.',
  merchant_type: 'company',
  kennitala: '4710080280',
  phone: '+354 111 1111',
  website: 'https://alpha.is',
  business_description: 'Alpha secret plans',
  bank_account: '0111-26-111111',
  legal_address: { street: 'Alphagata 1', city: 'Reykjavík', postalCode: '101', country: 'IS' },
};

beforeAll(async () => {
  stack = await sharedTestStack();
  a = await stack.merchant('Alpha hf.');
  b = await stack.merchant('Beta ehf.');
  expect((await stack.api(a.testKey, '/v1/merchant', { method: 'PATCH', json: A_PROFILE })).status).toBe(200);
  expect(
    (
      await stack.api(a.liveKey, '/v1/merchant/theme/', {
        method: 'PATCH',
        json: { primary_color: '#a1a1a1', font_family: 'Alpha Sans', source: 'alpha' },
      })
    ).status,
  ).toBe(200);
});
afterAll(async () => {
  await stack.stop();
});

async function snapshotA() {
  return {
    merchant: await stack.knex('merchants').where({ id: a.id }).first(),
    theme: await stack.knex('merchant_themes').where({ merchant_id: a.id }).first(),
    keys: await stack.knex('api_keys').where({ merchant_id: a.id }).orderBy('id'),
  };
}

/** Text that only A's data contains. */
function expectNoA(text: string) {
  for (const marker of [a.id, 'Alpha', '111 1111', 'alpha.is', 'Alphagata', '0111-26-111111', '#a1a1a1']) {
    expect(text).not.toContain(marker);
  }
}

describe.each([
  ['test', () => b.testKey],
  ['live', () => b.liveKey],
])("merchant B's %s key", (_kind, key) => {
  const calls: [string, string, unknown, Record<string, string>?][] = [
    ['GET', '/v1/merchant', undefined],
    ['GET', `/v1/merchant?id=${'A'}`, undefined],
    ['PATCH', '/v1/merchant', { phone: '+354 222 2222', business_description: 'Beta' }],
    ['PATCH', '/v1/merchant', { id: 'A', name: 'Pwned' }],
    ['PATCH', '/v1/merchant', { merchant: 'A', name: 'Pwned' }],
    ['POST', '/v1/merchant/submit', {}],
    ['POST', '/v1/merchant/registry-lookup', { kennitala: '4710080280' }],
    ['GET', '/v1/merchant/theme/', undefined],
    ['PATCH', '/v1/merchant/theme/', { primary_color: '#b2b2b2' }],
    ['PATCH', '/v1/merchant/theme/', { merchant_id: 'A', primary_color: '#b2b2b2' }],
    // The same Idempotency-Key A might use: it is B's own key space.
    ['PATCH', '/v1/merchant/theme/', { button_roundness: 'sharp' }, { 'idempotency-key': 'shared-key' }],
  ];

  test.each(calls.map((c) => [`${c[0]} ${c[1]} ${JSON.stringify(c[2] ?? '')}`, c] as const))(
    '%s neither shows nor changes A',
    async (_label, [method, rawPath, json, headers]) => {
      const before = await snapshotA();
      const path = rawPath.replace('=A', `=${a.id}`);
      const body = json && JSON.parse(JSON.stringify(json).replace('"A"', JSON.stringify(a.id)));
      const res = await stack.api(key(), path, {
        method,
        ...(body !== undefined && { json: body }),
        ...(headers && { headers }),
      });
      // The live registry is not configured yet: 503 there (merchant-profile.test.ts); no other failure.
      if (path !== '/v1/merchant/registry-lookup') expect(res.status).toBeLessThan(500);
      expectNoA(res.text);
      if (res.status === 200 && res.body?.object === 'merchant') expect(res.body.id).toBe(b.id);
      expect(await snapshotA()).toEqual(before);
    },
  );
});

test("A's own view is intact after all of B's calls", async () => {
  const me = await stack.api(a.testKey, '/v1/merchant');
  expect(me.body).toMatchObject({ id: a.id, phone: A_PROFILE.phone, application: { status: 'unsubmitted' } });
  const theme = await stack.api(a.liveKey, '/v1/merchant/theme/');
  expect(theme.body).toMatchObject({ primary_color: '#a1a1a1', button_roundness: null });
  // A using the same Idempotency-Key gets its own result, not B's replay.
  const own = await stack.api(a.liveKey, '/v1/merchant/theme/', {
    method: 'PATCH',
    json: { button_roundness: 'pill' },
    headers: { 'idempotency-key': 'shared-key' },
  });
  expect(own.headers.get('idempotent-replayed')).toBeNull();
  expect(own.body.button_roundness).toBe('pill');
});

test("B's dashboard user cannot roll or revoke A's keys, nor see them", async () => {
  const web = new WebClient(stack.url);
  const bUser = await createMerchantUser(stack.knex, b.id);
  await web.signIn(bUser.email, bUser.password);
  const aKeys = await stack.knex('api_keys').where({ merchant_id: a.id });
  const page = await web.get('/dashboard/api-keys');
  for (const k of aKeys) expect(page.text).not.toContain(k.id);
  expectNoA((await web.get('/dashboard/profile')).text);
  expectNoA((await web.get('/dashboard/theme')).text);
  for (const k of aKeys) {
    await web.get('/dashboard/api-keys');
    expect((await web.post(`/dashboard/api-keys/${k.id}/revoke`, {})).status).toBe(404);
    await web.get('/dashboard/api-keys');
    expect((await web.post(`/dashboard/api-keys/${k.id}/roll`, {})).status).toBe(404);
  }
  expect((await stack.api(a.testKey, '/v1/merchant')).status).toBe(200);
  expect((await stack.api(a.liveKey, '/v1/merchant')).status).toBe(200);
});
