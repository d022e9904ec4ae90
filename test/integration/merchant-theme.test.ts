import { sharedTestStack, type TestStack, type TestMerchant } from '../helpers/stack';

let stack: TestStack;

beforeAll(async () => {
  stack = await sharedTestStack();
});
afterAll(async () => {
  await stack.stop();
});

const PATH = '/v1/merchant/theme/';
const EMPTY = {
  object: 'merchant.theme',
  primary_color: null,
  background_color: null,
  font_family: null,
  heading_font_family: null,
  button_roundness: null,
  logo_url: null,
  source: null,
  updated_at: null,
};

function patch(key: string, json: unknown, headers: Record<string, string> = {}) {
  return stack.api(key, PATH, { method: 'PATCH', json, headers });
}

function expectError(res: { status: number; body: any }, status: number, param?: string, code?: string) {
  expect(res.status).toBe(status);
  expect(res.body.error).toEqual(
    expect.objectContaining({ type: 'invalid_request_error', message: expect.any(String) }),
  );
  if (param !== undefined) expect(res.body.error.param).toBe(param);
  if (code !== undefined) expect(res.body.error.code).toBe(code);
}

async function row(m: TestMerchant) {
  return stack.knex('merchant_themes').where({ merchant_id: m.id }).first();
}

describe('GET /v1/merchant/theme/', () => {
  test('every field is null until a theme is set, for either key, with or without the trailing slash', async () => {
    const m = await stack.merchant();
    for (const key of [m.testKey, m.liveKey]) {
      for (const path of [PATH, '/v1/merchant/theme']) {
        const res = await stack.api(key, path);
        expect(res.status).toBe(200);
        expect(res.body).toEqual(EMPTY);
      }
    }
    expect(await row(m)).toBeUndefined();
  });

  test('needs a key', async () => {
    expect((await stack.api(null, PATH)).status).toBe(401);
  });
});

describe('rule 1: values are validated strictly', () => {
  let m: TestMerchant;
  beforeAll(async () => {
    m = await stack.merchant();
  });

  test.each([
    ['primary_color', '#abc'],
    ['primary_color', '#AABBCC'],
    ['primary_color', '#aabbcc80'],
    ['background_color', '#fff'],
    ['font_family', 'Inter'],
    ['font_family', 'Source Sans 3'],
    ['font_family', '3 Dots-Regular'],
    ['heading_font_family', 'Playfair Display'],
    ['button_roundness', 'sharp'],
    ['button_roundness', 'rounded'],
    ['button_roundness', 'pill'],
    ['logo_url', 'https://cdn.example.is/logo.svg?v=2&x=%20#top'],
    ['source', 'https://kaffi.is (website scan)'],
    ['source', ''],
  ])('%s = %s is accepted', async (param, value) => {
    const res = await patch(m.testKey, { [param]: value });
    expect(res.status).toBe(200);
    expect(res.body[param]).toBe(value);
  });

  test.each([
    ['primary_color', 'red'],
    ['primary_color', '#abcd'], // #rgba is not one of the three forms
    ['primary_color', '#abcde'],
    ['primary_color', '#aabbccd'],
    ['primary_color', '#aabbccdde'],
    ['primary_color', 'abc'],
    ['primary_color', '#ggg'],
    ['primary_color', '#fff;}body{display:none'],
    ['background_color', 'rgb(0,0,0)'],
    ['background_color', '#fff\n'],
    ['font_family', ''],
    ['font_family', ' Inter'],
    ['font_family', '-Inter'],
    ['font_family', 'Inter, sans-serif'],
    ['font_family', '"Inter"'],
    ['font_family', "Inter'"],
    ['font_family', 'Inter;'],
    ['font_family', 'Inter}'],
    ['font_family', 'Inter</style>'],
    ['font_family', 'Inter\\22'],
    ['font_family', 'Ínter'],
    ['font_family', 'Inter\tBold'],
    ['heading_font_family', 'a,b'],
    ['button_roundness', 'round'],
    ['button_roundness', ''],
    ['logo_url', 'http://example.is/logo.png'],
    ['logo_url', 'https://'],
    ['logo_url', 'javascript:alert(1)'],
    ['logo_url', 'https://example.is/a b.png'],
    ['logo_url', 'https://example.is/"onerror="alert(1)'],
    ['logo_url', "https://example.is/'x"],
    ['logo_url', 'https://example.is/<script>'],
    ['logo_url', 'https://example.is/>'],
    ['logo_url', 'https://example.is/\u00a0x'],
    ['logo_url', ' https://example.is/x'],
    ['logo_url', 'HTTPS://example.is/x'],
    ['primary_color', 42],
    ['source', null],
  ])('%s = %j is refused with 400 naming it', async (param, value) => {
    const before = await row(m);
    expectError(await patch(m.testKey, { [param]: value }), 400, param);
    expect(await row(m)).toEqual(before);
  });

  test.each([
    ['https://example.is/\\x'], // a backslash escapes in CSS
    ['https://example.is/x\u0007'],
    ['https://example.is/\u202ex'], // bidi override
    ['https://user:pass@example.is/x'],
    ['https://[::1/x'],
  ])('logo_url %j has the declared shape but cannot be used: 422', async (value) => {
    expectError(await patch(m.testKey, { logo_url: value }), 422, 'logo_url', 'logo_url_unusable');
  });

  test('font names: 1 and 64 characters are accepted, 0 and 65 refused (both font fields)', async () => {
    for (const param of ['font_family', 'heading_font_family']) {
      expect((await patch(m.testKey, { [param]: 'A' })).status).toBe(200);
      expect((await patch(m.testKey, { [param]: 'A'.repeat(64) })).body[param]).toBe('A'.repeat(64));
      expectError(await patch(m.testKey, { [param]: '' }), 400, param);
      expectError(await patch(m.testKey, { [param]: 'A'.repeat(65) }), 400, param);
    }
  });

  test('logo_url: https:// plus 1 to 490 characters; so 498 in all is the longest, and 500 is never reached', async () => {
    const url = (n: number) => 'https://' + 'a'.repeat(n - 8);
    expect((await patch(m.testKey, { logo_url: url(9) })).status).toBe(200);
    expect((await patch(m.testKey, { logo_url: url(498) })).body.logo_url).toBe(url(498));
    for (const n of [499, 500, 501])
      expectError(await patch(m.testKey, { logo_url: url(n) }), 400, 'logo_url');
  });

  test('source: 500 characters accepted, 501 refused', async () => {
    expect((await patch(m.testKey, { source: 's'.repeat(500) })).body.source).toBe('s'.repeat(500));
    expectError(await patch(m.testKey, { source: 's'.repeat(501) }), 400, 'source');
  });

  test('unknown fields are refused', async () => {
    expectError(await patch(m.testKey, { text_color: '#000' }), 400, 'text_color', 'parameter_unknown');
  });
});

describe('setting and clearing', () => {
  test('only sent fields change; null clears a field; updated_at moves', async () => {
    const m = await stack.merchant();
    const first = await patch(m.testKey, { primary_color: '#123456', font_family: 'Inter', source: 'api' });
    expect(first.body).toMatchObject({
      primary_color: '#123456',
      font_family: 'Inter',
      background_color: null,
      source: 'api',
      updated_at: expect.any(Number),
    });
    const second = await patch(m.testKey, { button_roundness: 'pill' });
    expect(second.body).toMatchObject({
      primary_color: '#123456',
      font_family: 'Inter',
      button_roundness: 'pill',
    });
    const cleared = await patch(m.testKey, {
      primary_color: null,
      button_roundness: null,
      heading_font_family: null,
    });
    expect(cleared.body).toMatchObject({ primary_color: null, button_roundness: null, font_family: 'Inter' });
    expect((await stack.api(m.testKey, PATH)).body).toEqual(cleared.body);
  });

  test('an empty PATCH creates nothing', async () => {
    const m = await stack.merchant();
    const res = await patch(m.testKey, {});
    expect(res.body).toEqual(EMPTY);
    expect(await row(m)).toBeUndefined();
  });

  test('form-encoded bodies work', async () => {
    const m = await stack.merchant();
    const res = await stack.api(m.testKey, PATH, {
      method: 'PATCH',
      body: new URLSearchParams({ primary_color: '#0a0', font_family: 'Roboto' }),
    });
    expect(res.body).toMatchObject({ primary_color: '#0a0', font_family: 'Roboto' });
  });
});

describe('environments (rules 2 to 4)', () => {
  test('rule 2: a test key writes the test environment theme', async () => {
    const m = await stack.merchant();
    await patch(m.testKey, { primary_color: '#111111' });
    expect(await row(m)).toMatchObject({ livemode: false, primary_color: '#111111' });
    expect((await stack.api(m.testKey, PATH)).body.primary_color).toBe('#111111');
  });

  test('rule 3: a live key that finds the test row claims it, with the changes applied', async () => {
    const m = await stack.merchant();
    await patch(m.testKey, { primary_color: '#111111', font_family: 'Inter' });
    const claimed = await patch(m.liveKey, { primary_color: '#222222' });
    expect(claimed.status).toBe(200);
    expect(claimed.body).toMatchObject({ primary_color: '#222222', font_family: 'Inter' });
    expect(await row(m)).toMatchObject({ livemode: true, primary_color: '#222222', font_family: 'Inter' });
    const rows = await stack.knex('merchant_themes').where({ merchant_id: m.id });
    expect(rows).toHaveLength(1);
    // Production wins: the test checkout now shows the live theme too.
    expect((await stack.api(m.testKey, PATH)).body.primary_color).toBe('#222222');
  });

  test('a live key with no row creates it in live', async () => {
    const m = await stack.merchant();
    await patch(m.liveKey, { background_color: '#fafafa' });
    expect(await row(m)).toMatchObject({ livemode: true, background_color: '#fafafa' });
  });

  test('rule 4: a test key that finds a live row gets 409 theme_environment_mismatch and changes nothing', async () => {
    const m = await stack.merchant();
    await patch(m.liveKey, { primary_color: '#222222' });
    const before = await row(m);
    for (const body of [{ primary_color: '#333333' }, { logo_url: null }, {}]) {
      const res = await patch(m.testKey, body);
      expectError(res, 409, undefined, 'theme_environment_mismatch');
    }
    expect(await row(m)).toEqual(before);
    // A live key still can.
    expect((await patch(m.liveKey, { primary_color: '#333333' })).body.primary_color).toBe('#333333');
  });
});

describe('rule 5: Idempotency-Key', () => {
  test('the same key replays the first answer and does not apply the PATCH again', async () => {
    const m = await stack.merchant();
    const headers = { 'idempotency-key': 'theme-1' };
    const first = await patch(m.testKey, { primary_color: '#101010' }, headers);
    await patch(m.testKey, { primary_color: '#202020' });
    const replay = await patch(m.testKey, { primary_color: '#101010' }, headers);
    expect(replay.status).toBe(200);
    expect(replay.text).toBe(first.text);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect((await row(m)).primary_color).toBe('#202020');
  });

  test('the same key with other parameters is refused', async () => {
    const m = await stack.merchant();
    const headers = { 'idempotency-key': 'theme-2' };
    await patch(m.testKey, { primary_color: '#101010' }, headers);
    const res = await patch(m.testKey, { primary_color: '#303030' }, headers);
    expect(res.status).toBe(400);
    expect(res.body.error.type).toBe('idempotency_error');
    expect((await row(m)).primary_color).toBe('#101010');
  });

  test('a 409 is replayed too', async () => {
    const m = await stack.merchant();
    await patch(m.liveKey, { primary_color: '#222222' });
    const headers = { 'idempotency-key': 'theme-3' };
    const a = await patch(m.testKey, { primary_color: '#333333' }, headers);
    const b = await patch(m.testKey, { primary_color: '#333333' }, headers);
    expect(a.status).toBe(409);
    expect(b.text).toBe(a.text);
  });
});

describe('concurrency', () => {
  test('a live claim racing test writes leaves one row, owned by live', async () => {
    const m = await stack.merchant();
    const results = await Promise.all([
      patch(m.testKey, { primary_color: '#000001' }),
      patch(m.liveKey, { font_family: 'Inter' }),
      patch(m.testKey, { primary_color: '#000002' }),
    ]);
    for (const r of results) expect([200, 409]).toContain(r.status);
    expect(await stack.knex('merchant_themes').where({ merchant_id: m.id })).toHaveLength(1);
    expect((await row(m)).livemode).toBe(true);
  });
});
