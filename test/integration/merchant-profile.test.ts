import { startTestStack, type TestStack, type TestMerchant } from '../helpers/stack';
import { createOperator } from '../helpers/accounts';

let stack: TestStack;
let operator: { token: string; id: string };

beforeAll(async () => {
  stack = await startTestStack({ worker: false });
  operator = await createOperator(stack.knex);
});
afterAll(async () => {
  await stack.stop();
});

const address = { street: 'Borgartún 19', city: 'Reykjavík', postalCode: '105', country: 'IS' };

function patch(key: string, json: unknown) {
  return stack.api(key, '/v1/merchant', { method: 'PATCH', json });
}

function op(path: string, json: unknown = {}, method = 'POST') {
  return stack.api(operator.token, `/v1/operator${path}`, method === 'GET' ? {} : { method, json });
}

function expectError(res: { status: number; body: any }, status: number, param?: string, code?: string) {
  expect(res.status).toBe(status);
  expect(res.body.error).toEqual(
    expect.objectContaining({ type: expect.any(String), message: expect.any(String) }),
  );
  if (param !== undefined) expect(res.body.error.param).toBe(param);
  if (code !== undefined) expect(res.body.error.code).toBe(code);
}

async function completeProfile(m: TestMerchant) {
  const res = await patch(m.testKey, {
    merchant_type: 'company',
    kennitala: '4710080280',
    phone: '+354 410 4000',
    business_description: 'Banking services',
    bank_account: '0133-26-012345',
    legal_address: address,
  });
  expect(res.status).toBe(200);
}

describe('GET /v1/merchant', () => {
  test('returns the merchant of the key with capabilities, enabled_capabilities and features', async () => {
    const m = await stack.merchant('Kaffi ehf.');
    const res = await stack.api(m.testKey, '/v1/merchant');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: m.id,
      object: 'merchant',
      livemode: false,
      name: 'Kaffi ehf.',
      kennitala: null,
      application: { status: 'unsubmitted', submitted_at: null },
      capabilities: {
        payments: {
          status: 'inactive',
          requirements: ['kennitala', 'phone', 'business_description', 'application.submit', 'card_acquirer'],
        },
        claims: { status: 'inactive' },
        tap_to_pay: { status: 'inactive' },
      },
      // Test mode has the simulated acquirer and bank from sign-up.
      enabled_capabilities: ['payments.card', 'payments.bank_claim'],
      features: { pos: false },
      warnings: [],
    });
    const live = await stack.api(m.liveKey, '/v1/merchant');
    expect(live.body).toMatchObject({ id: m.id, livemode: true, enabled_capabilities: [] });
  });

  test('needs a key', async () => {
    expectError(await stack.api(null, '/v1/merchant'), 401);
  });
});

describe('PATCH /v1/merchant', () => {
  let m: TestMerchant;
  beforeAll(async () => {
    m = await stack.merchant();
  });

  test('updates only the fields sent', async () => {
    const first = await patch(m.testKey, { phone: '+354 555 1234', website: 'https://kaffi.is' });
    expect(first.status).toBe(200);
    const second = await patch(m.testKey, { business_description: 'Coffee and cake' });
    expect(second.body).toMatchObject({
      phone: '+354 555 1234',
      website: 'https://kaffi.is',
      business_description: 'Coffee and cake',
    });
    const got = await stack.api(m.testKey, '/v1/merchant');
    expect(got.body.phone).toBe('+354 555 1234');
  });

  test('null clears a field, and an empty string clears free text', async () => {
    await patch(m.testKey, { website: 'https://x.is', phone: '123' });
    const res = await patch(m.testKey, { website: null, phone: '' });
    expect(res.body).toMatchObject({ website: null, phone: null });
  });

  const edges: [string, string, boolean][] = [
    ['name', '', false],
    ['name', 'a', true],
    ['name', 'n'.repeat(255), true],
    ['name', 'n'.repeat(256), false],
    ['phone', '5'.repeat(50), true],
    ['phone', '5'.repeat(51), false],
    ['website', 'w'.repeat(255), true],
    ['website', 'w'.repeat(256), false],
    ['business_description', 'd'.repeat(2000), true],
    ['business_description', 'd'.repeat(2001), false],
    ['kennitala', '471008028', false], // 9 digits
    ['kennitala', '4710080280', true], // 10
    ['kennitala', '47100802800', false], // 11
    ['bank_account', '0133-26-012345', true], // 14 characters
    ['bank_account', '0133-26-0123456', false], // 15
    ['bank_account', '013326012345', true], // 12 digits, no dashes
    ['bank_account', '0133260123456', false], // 13 digits
  ];
  test.each(edges.map(([param, value, ok]) => [param, value.length, ok, value] as const))(
    '%s of %i characters: accepted %s',
    async (param, _length, ok, value) => {
      const res = await patch(m.testKey, { [param]: value });
      if (ok) {
        expect(res.status).toBe(200);
        expect(res.body[param]).toBe(param === 'bank_account' ? '0133-26-012345' : value);
      } else {
        expectError(res, 400, param);
      }
    },
  );

  test('kennitala: a structurally valid id with a failed check digit is a warning, not a rejection', async () => {
    // Issued without a check digit after 18 Feb 2026 (CLAIMS-DOMAIN.md §2.1).
    const res = await patch(m.testKey, { kennitala: '2811913049', merchant_type: 'individual' });
    expect(res.status).toBe(200);
    expect(res.body.kennitala).toBe('2811913049');
    expect(res.body.warnings).toEqual([
      expect.objectContaining({ code: 'kennitala_check_digit', param: 'kennitala' }),
    ]);
  });

  test.each([
    ['3213601234', 'date'], // day 32
    ['4713601234', 'date'], // company day 7, month 13
    ['1201603381', 'century'], // century digit 1
    ['471008-028', 'digits'],
    ['471008-0280', 'digits'], // exactly 10 digits: no hyphen
  ])('kennitala %s is refused (%s)', async (kennitala) => {
    expectError(await patch(m.testKey, { kennitala }), 400, 'kennitala');
  });

  test('a company kennitala for an individual is accepted with a warning', async () => {
    const res = await patch(m.testKey, { kennitala: '4710080280', merchant_type: 'individual' });
    expect(res.status).toBe(200);
    expect(res.body.warnings.map((w: { code: string }) => w.code)).toEqual(['kennitala_type_mismatch']);
  });

  test('legal_address needs all four fields and names the missing one', async () => {
    const { country: _c, ...three } = address;
    expectError(
      await patch(m.testKey, { legal_address: three }),
      400,
      'legal_address.country',
      'parameter_missing',
    );
    expectError(
      await patch(m.testKey, { legal_address: { ...address, city: '' } }),
      400,
      'legal_address.city',
    );
    expectError(
      await patch(m.testKey, { legal_address: { ...address, zip: '1' } }),
      400,
      'legal_address.zip',
    );
    const ok = await patch(m.testKey, { legal_address: address });
    expect(ok.body.legal_address).toEqual(address);
  });

  test('form-encoded bodies work, with bracketed nested fields', async () => {
    const res = await stack.api(m.testKey, '/v1/merchant', {
      method: 'PATCH',
      body: new URLSearchParams({
        phone: '+354 1',
        'legal_address[street]': 'Laugavegur 1',
        'legal_address[city]': 'Reykjavík',
        'legal_address[postalCode]': '101',
        'legal_address[country]': 'IS',
      }),
    });
    expect(res.status).toBe(200);
    expect(res.body.legal_address.street).toBe('Laugavegur 1');
  });

  test('other bad input names the field', async () => {
    expectError(await patch(m.testKey, { merchant_type: 'charity' }), 400, 'merchant_type');
    expectError(await patch(m.testKey, { name: 'two\nlines' }), 400, 'name');
    expectError(await patch(m.testKey, { colour: 'blue' }), 400, 'colour', 'parameter_unknown');
    expectError(await patch(m.testKey, { application: { status: 'approved' } }), 400, 'application');
  });

  test('Idempotency-Key is honoured', async () => {
    const headers = { 'idempotency-key': 'profile-1' };
    const a = await stack.api(m.testKey, '/v1/merchant', { method: 'PATCH', json: { phone: '1' }, headers });
    await patch(m.testKey, { phone: '2' });
    const b = await stack.api(m.testKey, '/v1/merchant', { method: 'PATCH', json: { phone: '1' }, headers });
    expect(b.text).toBe(a.text);
    expect(b.headers.get('idempotent-replayed')).toBe('true');
  });
});

describe('onboarding', () => {
  test('submit without kennitala, phone and description is 422 naming all of them', async () => {
    const m = await stack.merchant();
    const res = await stack.api(m.testKey, '/v1/merchant/submit', { method: 'POST' });
    expectError(res, 422, 'kennitala', 'application_incomplete');
    expect(res.body.error.params).toEqual(['kennitala', 'phone', 'business_description']);
    for (const f of ['kennitala', 'phone', 'business_description'])
      expect(res.body.error.message).toContain(f);
    await patch(m.testKey, { phone: '1' });
    const again = await stack.api(m.testKey, '/v1/merchant/submit', { method: 'POST' });
    expect(again.body.error.params).toEqual(['kennitala', 'business_description']);
    expect((await stack.api(m.testKey, '/v1/merchant')).body.application.status).toBe('unsubmitted');
  });

  test('the whole lifecycle: submit, review, approve, claims before cards, POS', async () => {
    const m = await stack.merchant('Lifecycle hf.');
    await completeProfile(m);
    const submitted = await stack.api(m.testKey, '/v1/merchant/submit', { method: 'POST' });
    expect(submitted.status).toBe(200);
    expect(submitted.body.application.status).toBe('in_review');
    expect(submitted.body.capabilities.payments).toEqual({
      status: 'pending',
      requirements: ['application.review', 'card_acquirer'],
    });
    expectError(
      await stack.api(m.testKey, '/v1/merchant/submit', { method: 'POST' }),
      409,
      undefined,
      'application_already_submitted',
    );

    // The review queue shows it.
    const queue = await op('/merchants?status=in_review&limit=100', undefined, 'GET');
    expect(queue.status).toBe(200);
    expect(queue.body.data.map((x: { id: string }) => x.id)).toContain(m.id);

    // Cards cannot be activated before approval.
    expectError(
      await op(`/merchants/${m.id}/card-acquirer/activate`),
      409,
      undefined,
      'application_not_approved',
    );

    const approved = await op(`/merchants/${m.id}/approve`);
    expect(approved.status).toBe(200);
    expect(approved.body.application.status).toBe('approved');
    expect(approved.body.capabilities.payments).toEqual({
      status: 'pending',
      requirements: ['card_acquirer'],
    });
    expect(approved.body.enabled_capabilities).toEqual([]);
    expectError(await op(`/merchants/${m.id}/approve`), 409, undefined, 'application_not_in_review');

    // Bank claims open first, once the claims agreement is signed.
    await op(`/merchants/${m.id}/claims-agreement/sign`);
    let live = await stack.api(m.liveKey, '/v1/merchant');
    expect(live.body.enabled_capabilities).toEqual(['payments.bank_claim']);
    expect(live.body.capabilities.claims.status).toBe('active');
    expect(live.body.capabilities.payments.status).toBe('pending');

    await op(`/merchants/${m.id}/card-acquirer/activate`);
    live = await stack.api(m.liveKey, '/v1/merchant');
    expect(live.body.enabled_capabilities).toEqual(['payments.card', 'payments.bank_claim']);
    expect(live.body.capabilities.payments).toEqual({ status: 'active', requirements: [] });
    expect(live.body.capabilities.tap_to_pay).toEqual({ status: 'inactive', requirements: ['features.pos'] });
    expect(live.body.features.pos).toBe(false);

    const pos = await op(`/merchants/${m.id}/features`, { pos: true }, 'PATCH');
    expect(pos.body.features.pos).toBe(true);
    live = await stack.api(m.liveKey, '/v1/merchant');
    expect(live.body.capabilities.tap_to_pay.status).toBe('active');
    expect(live.body.features).toEqual({ pos: true });
  });

  test('a rejected application can be fixed and submitted again', async () => {
    const m = await stack.merchant();
    await completeProfile(m);
    await stack.api(m.testKey, '/v1/merchant/submit', { method: 'POST' });
    expectError(await op(`/merchants/${m.id}/reject`, {}), 400, 'reason');
    const rejected = await op(`/merchants/${m.id}/reject`, { reason: 'Bank account does not match' });
    expect(rejected.body.application).toMatchObject({
      status: 'rejected',
      rejection_reason: 'Bank account does not match',
    });
    expect(rejected.body.capabilities.payments.status).toBe('rejected');
    expect((await patch(m.testKey, { bank_account: '0133-26-999999' })).status).toBe(200);
    const again = await stack.api(m.testKey, '/v1/merchant/submit', { method: 'POST' });
    expect(again.body.application).toMatchObject({ status: 'in_review', rejection_reason: null });
  });

  test('verified fields are frozen in review; after approval identity is fixed and money fields need a live key', async () => {
    const m = await stack.merchant();
    await completeProfile(m);
    await stack.api(m.testKey, '/v1/merchant/submit', { method: 'POST' });
    expectError(
      await patch(m.testKey, { bank_account: '0133-26-111111' }),
      409,
      'bank_account',
      'application_in_review',
    );
    expect((await patch(m.testKey, { phone: '+354 1' })).status).toBe(200); // not verified: free
    expect((await patch(m.testKey, { kennitala: '4710080280' })).status).toBe(200); // unchanged value
    await op(`/merchants/${m.id}/approve`);
    expectError(
      await patch(m.liveKey, { kennitala: '4910080160' }),
      409,
      'kennitala',
      'profile_field_locked',
    );
    expectError(
      await patch(m.testKey, { bank_account: '0133-26-111111' }),
      403,
      undefined,
      'live_key_required',
    );
    const viaLive = await patch(m.liveKey, { bank_account: '0133-26-111111' });
    expect(viaLive.status).toBe(200);
    expect(viaLive.body.bank_account).toBe('0133-26-111111');
  });
});

describe('operator API', () => {
  test('needs an operator token: none, an API key of either kind and a bad token are 401', async () => {
    const m = await stack.merchant();
    for (const key of [null, m.testKey, m.liveKey, 'op_' + 'x'.repeat(40)]) {
      expectError(await stack.api(key, `/v1/operator/merchants/${m.id}`), 401);
      expectError(
        await stack.api(key, `/v1/operator/merchants/${m.id}/approve`, { method: 'POST', json: {} }),
        401,
      );
    }
  });

  test('an unknown merchant is 404, an unknown path is 404', async () => {
    expectError(await op('/merchants/acct_nope/approve'), 404);
    expectError(await op('/nothing', undefined, 'GET'), 404);
  });

  test('operator routes are not in the merchant OpenAPI document; merchant and device routes are', async () => {
    const doc = await stack.api(null, '/v1/openapi.json');
    const paths = Object.keys(doc.body.paths);
    expect(paths).toEqual(
      expect.arrayContaining([
        '/v1/merchant',
        '/v1/merchant/submit',
        '/v1/merchant/registry-lookup',
        '/v1/merchant/theme/',
        '/v1/device/authorize',
        '/v1/device/token',
      ]),
    );
    expect(paths.some((p) => p.startsWith('/v1/operator'))).toBe(false);
    expect(doc.body.paths['/v1/device/token'].get.security).toEqual([]);
  });
});

describe('POST /v1/merchant/registry-lookup', () => {
  test.each([
    ['4710080280', 'Landsbankinn hf.', 'Reykjastræti 6'],
    ['4910080160', 'Íslandsbanki hf.', 'Hagasmári 3'],
    ['5810080150', 'Arion banki hf.', 'Borgartún 19'],
    ['4602070880', 'Síminn hf.', 'Ármúli 25'],
    ['6312051780', 'Icelandair Group hf.', 'Reykjavíkurflugvöllur'],
  ])('%s is %s', async (kennitala, name, street) => {
    const m = await stack.merchant();
    const res = await stack.api(m.testKey, '/v1/merchant/registry-lookup', {
      method: 'POST',
      json: { kennitala },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      object: 'registry_company',
      kennitala,
      name,
      legal_address: { street, country: 'IS' },
      source: 'test_registry',
    });
  });

  test('unknown is 404, malformed is 400, each at the 10-digit edge', async () => {
    const m = await stack.merchant();
    const lookup = (kennitala: unknown) =>
      stack.api(m.testKey, '/v1/merchant/registry-lookup', { method: 'POST', json: { kennitala } });
    expectError(await lookup('5510730339'), 404, 'kennitala', 'resource_missing'); // valid, not in the registry
    expectError(await lookup('551073033'), 400, 'kennitala'); // 9 digits
    expectError(await lookup('55107303390'), 400, 'kennitala'); // 11 digits
    expectError(await lookup('9910730339'), 400, 'kennitala'); // no such date
    expectError(await lookup(4710080280), 400, 'kennitala');
    expectError(
      await stack.api(m.testKey, '/v1/merchant/registry-lookup', { method: 'POST', json: {} }),
      400,
      'kennitala',
      'parameter_missing',
    );
  });

  test('live mode has no registry configured yet: 503', async () => {
    const m = await stack.merchant();
    const res = await stack.api(m.liveKey, '/v1/merchant/registry-lookup', {
      method: 'POST',
      json: { kennitala: '4710080280' },
    });
    expectError(res, 503, undefined, 'registry_unavailable');
  });
});
