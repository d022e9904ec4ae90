import { startTestStack, type TestStack, type TestMerchant } from '../helpers/stack';
import { WebClient, createMerchantUser, createOperator, type TestUser } from '../helpers/accounts';

let stack: TestStack;
let merchant: TestMerchant;
let user: TestUser;

beforeAll(async () => {
  stack = await startTestStack({ worker: false });
  merchant = await stack.merchant('Dashboard hf.');
  user = await createMerchantUser(stack.knex, merchant.id);
});
afterAll(async () => {
  await stack.stop();
});

async function signedIn(u: TestUser = user): Promise<WebClient> {
  const web = new WebClient(stack.url);
  const res = await web.signIn(u.email, u.password);
  expect(res.status).toBe(303);
  return web;
}

/** Every POST form on the page, with whether it carries a CSRF field. */
function postForms(page: string): { action: string; hasCsrf: boolean }[] {
  return [...page.matchAll(/<form[^>]*method="post"[^>]*action="([^"]+)"[^>]*>([\s\S]*?)<\/form>/g)].map(
    (m) => ({
      action: m[1]!,
      hasCsrf: /name="_csrf" value="[0-9A-Za-z]{32}"/.test(m[2]!),
    }),
  );
}

describe('sign-in', () => {
  test('the session cookie is httpOnly and SameSite, its token is stored only hashed', async () => {
    const web = new WebClient(stack.url);
    await web.get('/dashboard/sign-in');
    const res = await web.post('/dashboard/sign-in', { email: user.email, password: user.password });
    expect(res.status).toBe(303);
    expect(res.location).toBe('/dashboard/home');
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith('skil_session='))!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    const token = web.cookies.get('skil_session')!;
    const rows = await stack.knex('dashboard_sessions').select('*');
    expect(JSON.stringify(rows)).not.toContain(token);
    expect((await web.get('/dashboard/profile')).status).toBe(200);
  });

  test('passwords are stored with scrypt, never in clear', async () => {
    const row = await stack.knex('users').where({ id: user.id }).first();
    // This user is a fixture's, hashed at the fixtures' cost (helpers/accounts.ts); a password a
    // person sets is held to the real cost by the sign-up test.
    expect(row.password_hash).toMatch(/^scrypt\$\d+\$\d+\$\d+\$[A-Za-z0-9+/=]{24}\$[A-Za-z0-9+/=]{44}$/);
    expect(row.password_hash).not.toContain(user.password);
  });

  test('the sign-in form needs its CSRF token', async () => {
    const web = new WebClient(stack.url);
    await web.get('/dashboard/sign-in');
    const res = await web.post('/dashboard/sign-in', {
      email: user.email,
      password: user.password,
      _csrf: 'y'.repeat(32),
    });
    expect(res.status).toBe(403);
    expect(web.cookies.has('skil_session')).toBe(false);
  });

  test('a wrong password and an unknown address get the same answer', async () => {
    const a = new WebClient(stack.url);
    await a.get('/dashboard/sign-in');
    const wrong = await a.post('/dashboard/sign-in', { email: user.email, password: 'not the password' });
    const b = new WebClient(stack.url);
    await b.get('/dashboard/sign-in');
    const unknown = await b.post('/dashboard/sign-in', { email: 'nobody@example.test', password: 'x' });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    const message = (t: string) => /role="alert">([^<]*)</.exec(t)?.[1];
    expect(message(wrong.text)).toBe(message(unknown.text));
    await stack.knex('sign_in_throttle').delete();
  });

  test('five failures lock the address for 15 minutes, even for the right password; known or not', async () => {
    const victim = await createMerchantUser(stack.knex, merchant.id);
    for (const email of [victim.email, 'ghost@example.test']) {
      const web = new WebClient(stack.url);
      await web.get('/dashboard/sign-in');
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++)
        statuses.push((await web.post('/dashboard/sign-in', { email, password: `wrong-${i}` })).status);
      expect(statuses).toEqual([401, 401, 401, 401, 429]);
      const right = await web.post('/dashboard/sign-in', { email, password: victim.password });
      expect(right.status).toBe(429);
      expect(right.text).toContain('15 minutes');
    }
    const lock = await stack.knex('sign_in_throttle').where({ email: victim.email }).first();
    expect(lock.locked_until.getTime() - Date.now()).toBeGreaterThan(14 * 60 * 1000);
    // When the lock has passed, the right password works again.
    await stack
      .knex('sign_in_throttle')
      .where({ email: victim.email })
      .update({ locked_until: new Date(Date.now() - 1000) });
    expect((await new WebClient(stack.url).signIn(victim.email, victim.password)).status).toBe(303);
  });

  test('sign-out ends the session server-side', async () => {
    const web = await signedIn();
    const token = web.cookies.get('skil_session')!;
    await web.get('/dashboard/profile');
    expect((await web.post('/dashboard/sign-out', {})).status).toBe(303);
    const stale = new WebClient(stack.url);
    stale.cookies.set('skil_session', token);
    const res = await stale.get('/dashboard/profile');
    expect(res.status).toBe(303);
    expect(res.location).toMatch(/^\/dashboard\/sign-in/);
  });

  test('pages need a session and come back after sign-in; next cannot leave the site', async () => {
    const web = new WebClient(stack.url);
    const res = await web.get('/dashboard/api-keys');
    expect(res.status).toBe(303);
    expect(res.location).toBe('/dashboard/sign-in?next=%2Fdashboard%2Fapi-keys');
    for (const next of ['https://evil.example/', '//evil.example/', '/\\evil.example', '/v1/merchant']) {
      const w = new WebClient(stack.url);
      await w.get('/dashboard/sign-in');
      const r = await w.post('/dashboard/sign-in', { email: user.email, password: user.password, next });
      expect(r.location).toBe('/dashboard/home');
    }
  });

  test('pages carry strict security headers', async () => {
    const web = await signedIn();
    const res = await web.get('/dashboard/profile');
    expect(res.headers.get('content-security-policy')).toMatch(/default-src 'none'/);
    expect(res.headers.get('content-security-policy')).toMatch(/frame-ancestors 'none'/);
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.text).not.toMatch(/<script/i);
  });
});

describe('CSRF protection on every form', () => {
  test('every POST form on every page carries the token', async () => {
    const op = await createOperator(stack.knex);
    const opWeb = await signedIn(op);
    const web = await signedIn();
    const { body } = await stack.api(null, '/v1/device/authorize', {
      method: 'POST',
      json: { client_name: 'x' },
    });
    const pages: [WebClient, string][] = [
      [web, '/dashboard/profile'],
      [web, '/dashboard/theme'],
      [web, '/dashboard/api-keys'],
      [web, `/device?user_code=${body.user_code}`],
      [opWeb, `/dashboard/operator/merchants/${merchant.id}`],
      [opWeb, '/dashboard/operator'],
    ];
    let forms = 0;
    for (const [client, path] of pages) {
      const page = await client.get(path);
      expect(page.status).toBe(200);
      for (const form of postForms(page.text)) {
        forms++;
        expect(form).toEqual({ action: form.action, hasCsrf: true });
      }
    }
    expect(forms).toBeGreaterThanOrEqual(8);
  });

  test('a post without the token, with another session token, or cross-site changes nothing', async () => {
    const web = await signedIn();
    const other = await signedIn();
    await other.get('/dashboard/profile');
    const otherToken = other.csrf()!;
    await web.get('/dashboard/profile');
    const before = await stack.knex('merchants').where({ id: merchant.id }).first();
    for (const [form, headers] of [
      [{ name: 'Hacked', _csrf: '' }, {}],
      [{ name: 'Hacked', _csrf: otherToken }, {}],
      [{ name: 'Hacked' }, { 'sec-fetch-site': 'cross-site' }],
    ] as [Record<string, string>, Record<string, string>][]) {
      const res = await web.post('/dashboard/profile', form, headers);
      expect(res.status).toBe(403);
    }
    expect((await stack.knex('merchants').where({ id: merchant.id }).first()).name).toBe(before.name);
    expect((await web.post('/dashboard/api-keys', { mode: 'test', _csrf: 'z'.repeat(32) })).status).toBe(403);
  });
});

describe('profile page', () => {
  test('saves the profile with the API rules and shows errors by field', async () => {
    const m = await stack.merchant('Form ehf.');
    const web = await signedIn(await createMerchantUser(stack.knex, m.id));
    await web.get('/dashboard/profile');
    const form = {
      name: 'Form ehf.',
      merchant_type: 'company',
      kennitala: '4710080280',
      phone: '+354 555 0000',
      website: '',
      business_description: 'Things',
      bank_account: '013326012345',
      'legal_address[street]': 'Laugavegur 1',
      'legal_address[city]': 'Reykjavík',
      'legal_address[postalCode]': '101',
      'legal_address[country]': 'IS',
    };
    const saved = await web.post('/dashboard/profile', form);
    expect(saved.status).toBe(200);
    expect(saved.text).toContain('Profile saved');
    const row = await stack.knex('merchants').where({ id: m.id }).first();
    expect(row).toMatchObject({ kennitala: '4710080280', bank_account: '0133-26-012345', website: null });
    const bad = await web.post('/dashboard/profile', { ...form, kennitala: '12345' });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('(kennitala)');
    const submitted = await web.post('/dashboard/profile/submit', {});
    expect(submitted.text).toContain('Application submitted');
    expect((await stack.api(m.testKey, '/v1/merchant')).body.application.status).toBe('in_review');
  });

  test('the submit form reports what is missing', async () => {
    const m = await stack.merchant();
    const web = await signedIn(await createMerchantUser(stack.knex, m.id));
    await web.get('/dashboard/profile');
    const res = await web.post('/dashboard/profile/submit', {});
    expect(res.status).toBe(400);
    expect(res.text).toContain('kennitala, phone, business_description');
  });
});

describe('theme page', () => {
  test('saves a theme for test and previews it; refuses hostile values without rendering them', async () => {
    const m = await stack.merchant('Theme ehf.');
    const web = await signedIn(await createMerchantUser(stack.knex, m.id));
    await web.get('/dashboard/theme');
    const form = {
      environment: 'test',
      primary_color: '#aa0000',
      background_color: '',
      font_family: 'Inter',
      heading_font_family: '',
      button_roundness: 'pill',
      logo_url: 'https://cdn.example.is/logo.png',
    };
    const saved = await web.post('/dashboard/theme', form);
    expect(saved.status).toBe(200);
    expect(saved.text).toContain('--skil-primary: #aa0000');
    expect(saved.text).toContain('--skil-font: "Inter", system-ui, sans-serif');
    expect(saved.text).toContain('<img class="skil-logo" src="https://cdn.example.is/logo.png"');
    expect(saved.text).toContain('https://fonts.googleapis.com/css2?family=Inter&amp;display=swap');
    expect((await stack.api(m.testKey, '/v1/merchant/theme/')).body).toMatchObject({
      primary_color: '#aa0000',
      button_roundness: 'pill',
      source: 'dashboard',
    });

    const hostile = await web.post('/dashboard/theme', {
      ...form,
      primary_color: '#fff;}</style><script>x()</script>',
    });
    expect(hostile.status).toBe(400);
    expect(hostile.text).not.toContain('<script>x()');
    expect(hostile.text).toContain('(primary_color)');

    const live = await web.post('/dashboard/theme', { ...form, environment: 'live' });
    expect(live.status).toBe(403);
  });
});

describe('API keys page', () => {
  test('create shows the secret once; roll revokes the old key; revoke stops it', async () => {
    const m = await stack.merchant('Keys ehf.');
    const web = await signedIn(await createMerchantUser(stack.knex, m.id));
    await web.get('/dashboard/api-keys');
    const created = await web.post('/dashboard/api-keys', { mode: 'test' });
    const secret = /data-testid="new-secret"[^>]*>([^<]+)</.exec(created.text)![1]!;
    expect(secret).toMatch(/^sk_test_/);
    expect((await stack.api(secret, '/v1/merchant')).body.id).toBe(m.id);
    const list = await web.get('/dashboard/api-keys');
    expect(list.text).not.toContain(secret);
    expect(list.text).toContain(`…${secret.slice(-4)}`);

    const keyId = (
      await stack
        .knex('api_keys')
        .where({ merchant_id: m.id, last4: secret.slice(-4) })
        .first()
    ).id;
    const rolled = await web.post(`/dashboard/api-keys/${keyId}/roll`, {});
    const rolledSecret = /data-testid="new-secret"[^>]*>([^<]+)</.exec(rolled.text)![1]!;
    expect(rolledSecret).not.toBe(secret);
    expect((await stack.api(secret, '/v1/merchant')).status).toBe(401);
    expect((await stack.api(rolledSecret, '/v1/merchant')).status).toBe(200);

    const newId = (
      await stack
        .knex('api_keys')
        .where({ merchant_id: m.id, last4: rolledSecret.slice(-4) })
        .first()
    ).id;
    await web.post(`/dashboard/api-keys/${newId}/revoke`, {});
    expect((await stack.api(rolledSecret, '/v1/merchant')).status).toBe(401);
  });

  test('a live key only after approval', async () => {
    const m = await stack.merchant('Live ehf.');
    const web = await signedIn(await createMerchantUser(stack.knex, m.id));
    await web.get('/dashboard/api-keys');
    const refused = await web.post('/dashboard/api-keys', { mode: 'live' });
    expect(refused.status).toBe(403);
    expect(refused.text).toContain('approved');
    await stack.knex('merchants').where({ id: m.id }).update({ application_status: 'approved' });
    const created = await web.post('/dashboard/api-keys', { mode: 'live' });
    const secret = /data-testid="new-secret"[^>]*>([^<]+)</.exec(created.text)![1]!;
    expect(secret).toMatch(/^sk_live_/);
    expect((await stack.api(secret, '/v1/merchant')).body).toMatchObject({ id: m.id, livemode: true });
  });
});

describe('operator pages', () => {
  test('an operator approves an application and activates cards from the dashboard', async () => {
    const m = await stack.merchant('Review ehf.');
    await stack.api(m.testKey, '/v1/merchant', {
      method: 'PATCH',
      json: { kennitala: '4910080160', phone: '1', business_description: 'x' },
    });
    await stack.api(m.testKey, '/v1/merchant/submit', { method: 'POST' });
    const op = await createOperator(stack.knex);
    const web = await signedIn(op);
    const queue = await web.get('/dashboard/operator');
    expect(queue.text).toContain(`/dashboard/operator/merchants/${m.id}`);
    await web.get(`/dashboard/operator/merchants/${m.id}`);
    const approved = await web.post(`/dashboard/operator/merchants/${m.id}/approve`, {});
    expect(approved.text).toMatch(/data-testid="application-status">approved/);
    await web.post(`/dashboard/operator/merchants/${m.id}/card-acquirer`, {});
    await web.post(`/dashboard/operator/merchants/${m.id}/pos`, { pos: 'true' });
    const live = await stack.api(m.liveKey, '/v1/merchant');
    expect(live.body.enabled_capabilities).toEqual(['payments.card']);
    expect(live.body.features.pos).toBe(true);
    expect((await stack.knex('merchants').where({ id: m.id }).first()).application_reviewed_by).toBe(op.id);
  });

  test('merchant users cannot reach operator pages, operators cannot reach merchant pages', async () => {
    const web = await signedIn();
    expect((await web.get('/dashboard/operator')).status).toBe(403);
    expect((await web.get(`/dashboard/operator/merchants/${merchant.id}`)).status).toBe(403);
    await web.get('/dashboard/profile');
    expect((await web.post(`/dashboard/operator/merchants/${merchant.id}/approve`, {})).status).toBe(403);
    const opWeb = await signedIn(await createOperator(stack.knex));
    expect((await opWeb.get('/dashboard/profile')).status).toBe(403);
    expect((await opWeb.get('/dashboard/api-keys')).status).toBe(403);
  });
});
