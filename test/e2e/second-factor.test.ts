import type { Browser, Page } from 'playwright-core';
import { launchChromium, openPage } from '../helpers/browser';
import { startWebStack, type WebStack } from '../helpers/web-stack';
import { seriousAccessibilityFindings } from '../helpers/accessibility';
import { WebClient, createMerchantUser, createOperator, type TestUser } from '../helpers/accounts';
import { base32Decode, hotp, totpStep } from '../../domain/totp';

/**
 * Second factor and re-authentication (decisions 0220-0222), through the dashboard as members use
 * it: an authenticator app is set up from its QR page and signs in, each code once; a recovery code
 * works once; wrong codes lock as wrong passwords do; a merchant's requirement sends a member to
 * set one up before anything else; an operator resets a lost one, audited; a sensitive change
 * without a recent sign-in asks again and changes nothing until it is answered.
 */

let web: WebStack;
let browser: Browser;
let merchant: { id: string; testKey: string };
let owner: TestUser;

beforeAll(async () => {
  [web, browser] = await Promise.all([startWebStack(), launchChromium()]);
  merchant = await web.merchant('Tvíþátta ehf.');
  owner = await createMerchantUser(web.knex, merchant.id);
});
afterAll(async () => {
  await browser?.close();
  await web?.stop();
});

/** The code an authenticator app shows `ahead` steps from now for a secret as the page shows it. */
function codeFor(secret: string, ahead = 0): string {
  return hotp(base32Decode(secret), totpStep(Date.now() / 1000) + ahead);
}

const newPage = () => openPage(browser, web.url, { bypassCSP: true });

async function passwordStep(page: Page, u: TestUser): Promise<void> {
  await page.goto(`${web.url}/dashboard/sign-in?lang=en`);
  await page.getByLabel('Email').fill(u.email);
  await page.getByLabel('Password').fill(u.password);
  await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Sign in' }).click()]);
}

async function submitCode(page: Page, code: string): Promise<void> {
  await page.getByLabel('Authentication code').fill(code);
  await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Verify' }).click()]);
}

/** Fits at the width: nothing scrolls sideways, and axe finds nothing serious. */
async function checkLayout(page: Page, what: string): Promise<void> {
  const sideways = await page.evaluate(() => {
    const root = (
      globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }
    ).document.documentElement;
    return root.scrollWidth - root.clientWidth;
  });
  expect({ what, sideways }).toEqual({ what, sideways: 0 });
  expect({ what, findings: await seriousAccessibilityFindings(page) }).toEqual({ what, findings: [] });
}

/** Sets up the authenticator app over HTTP as the page offers it; answers the secret and the recovery codes. */
async function enrolOverHttp(client: WebClient): Promise<{ secret: string; codes: string[] }> {
  await client.get('/dashboard/security');
  const start = await client.post('/dashboard/security/totp', {});
  expect(start.status).toBe(200);
  const secret = /data-testid="totp-secret">([A-Z2-7 ]+)</.exec(start.text)![1]!.replace(/ /g, '');
  const done = await client.post('/dashboard/security/totp/confirm', { code: codeFor(secret) });
  expect(done.status).toBe(200);
  const codes = [...done.text.matchAll(/<li><code>([a-z0-9-]+)<\/code><\/li>/g)].map((m) => m[1]!);
  expect(codes).toHaveLength(10);
  return { secret, codes };
}

let ownerSecret = '';
let ownerRecovery: string[] = [];

test('set up an authenticator app from its QR page, then sign in with it; a code works once', async () => {
  const { page, context } = await newPage();
  try {
    await passwordStep(page, owner);
    expect(new URL(page.url()).pathname).toBe('/dashboard/home');
    // The enrolment page in Icelandic first; the English one below shows the same waiting secret.
    await page.goto(`${web.url}/dashboard/security?lang=is`);
    await Promise.all([
      page.waitForNavigation(),
      page.getByRole('button', { name: 'Setja upp auðkenningarforrit' }).click(),
    ]);
    await page.getByRole('img', { name: 'QR-kóði fyrir auðkenningarforritið' }).waitFor();
    const shownInIcelandic = (await page.getByTestId('totp-secret').innerText()).replace(/\s/g, '');
    for (const width of [390, 1280]) {
      await page.setViewportSize({ width, height: 900 });
      await checkLayout(page, `enrolment is at ${width}`);
    }
    await page.goto(`${web.url}/dashboard/security?lang=en`);
    await Promise.all([
      page.waitForNavigation(),
      page.getByRole('button', { name: 'Set up an authenticator app' }).click(),
    ]);
    await page.getByRole('img', { name: 'QR code for your authenticator app' }).waitFor();
    ownerSecret = (await page.getByTestId('totp-secret').innerText()).replace(/\s/g, '');
    expect(ownerSecret).toMatch(/^[A-Z2-7]{32}$/);
    expect(ownerSecret).toBe(shownInIcelandic);
    for (const width of [390, 1280]) {
      await page.setViewportSize({ width, height: 900 });
      await checkLayout(page, `enrolment at ${width}`);
    }
    // The seed is sealed at rest: the stored row never holds the secret shown.
    const stored = await web.knex('user_totp').where({ user_id: owner.id }).first();
    expect(stored.secret).toMatch(/^enc1\./);
    expect(JSON.stringify(stored)).not.toContain(ownerSecret);

    // A wrong code leaves the enrolment waiting.
    await page.getByLabel('Authentication code').fill(codeFor(ownerSecret, 5));
    await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Confirm' }).click()]);
    await page.getByText('That code is not right').waitFor();
    expect((await web.knex('user_totp').where({ user_id: owner.id }).first()).confirmed_at).toBeNull();

    const used = codeFor(ownerSecret);
    await page.getByLabel('Authentication code').fill(used);
    await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Confirm' }).click()]);
    ownerRecovery = (await page.getByTestId('recovery-codes').locator('code').allInnerTexts()).map((c) =>
      c.trim(),
    );
    expect(ownerRecovery).toHaveLength(10);
    // Stored as hashes only.
    const rows = await web.knex('user_recovery_codes').where({ user_id: owner.id });
    expect(rows).toHaveLength(10);
    for (const code of ownerRecovery) expect(JSON.stringify(rows)).not.toContain(code);

    await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Sign out' }).click()]);
    await passwordStep(page, owner);
    expect(new URL(page.url()).pathname).toBe('/dashboard/sign-in/code');
    // Before the code, the session opens nothing.
    await page.goto(`${web.url}/dashboard/home`);
    expect(new URL(page.url()).pathname).toBe('/dashboard/sign-in');
    await page.goto(`${web.url}/dashboard/sign-in/code?lang=en`);
    for (const [lang, width] of [
      ['en', 390],
      ['is', 1280],
      ['is', 390],
      ['en', 1280],
    ] as const) {
      await page.setViewportSize({ width, height: 900 });
      await page.goto(`${web.url}/dashboard/sign-in/code?lang=${lang}`);
      await checkLayout(page, `code step ${lang} at ${width}`);
    }
    // The code that confirmed the enrolment is spent: the same code again is refused.
    await submitCode(page, used);
    await page.getByText('That code is not right, or was used already.').waitFor();
    await submitCode(page, codeFor(ownerSecret, 1));
    expect(new URL(page.url()).pathname).toBe('/dashboard/home');
    await page.goto(`${web.url}/dashboard/security?lang=is`);
    await page.getByText('Auðkenningarforrit er uppsett').waitFor();
    for (const width of [390, 1280]) {
      await page.setViewportSize({ width, height: 900 });
      await checkLayout(page, `security is at ${width}`);
    }
  } finally {
    await context.close();
  }
});

test('a recovery code signs in once', async () => {
  expect(ownerRecovery).toHaveLength(10);
  const { page, context } = await newPage();
  try {
    await passwordStep(page, owner);
    await submitCode(page, ownerRecovery[0]!.toUpperCase());
    expect(new URL(page.url()).pathname).toBe('/dashboard/home');
    await page.goto(`${web.url}/dashboard/security?lang=en`);
    await page.getByText('9 recovery codes are left.').waitFor();
    await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Sign out' }).click()]);
    await passwordStep(page, owner);
    await submitCode(page, ownerRecovery[0]!);
    await page.getByText('That code is not right, or was used already.').waitFor();
    expect(new URL(page.url()).pathname).toBe('/dashboard/sign-in/code');
  } finally {
    await context.close();
  }
});

test('a sensitive change without a recent sign-in asks again and changes nothing until then', async () => {
  expect(ownerSecret).not.toBe('');
  const { page, context } = await newPage();
  const bankAccount = async () =>
    (
      (await (
        await fetch(`${web.url}/v1/merchant`, { headers: { authorization: `Bearer ${merchant.testKey}` } })
      ).json()) as { bank_account: string | null }
    ).bank_account;
  try {
    await passwordStep(page, owner);
    await submitCode(page, ownerRecovery[1]!);
    const before = await bankAccount();
    // The clock moves on: the sign-in is now older than the re-authentication window.
    await web
      .knex('dashboard_sessions')
      .where({ user_id: owner.id })
      .update({
        authenticated_at: web.knex.raw("now() - interval '10 minutes'"),
      });
    // Asked in Icelandic: the page asks in Icelandic, and nothing changes.
    await page.goto(`${web.url}/dashboard/profile?lang=is`);
    await page.locator('input[name="bank_account"]').fill('0133-26-999999');
    await Promise.all([
      page.waitForNavigation(),
      page.locator('form[action="/dashboard/profile"] button[type="submit"]').click(),
    ]);
    await page.getByRole('heading', { name: 'Staðfestu að þetta sért þú' }).waitFor();
    for (const width of [390, 1280]) {
      await page.setViewportSize({ width, height: 900 });
      await checkLayout(page, `re-authentication is at ${width}`);
    }
    expect(await bankAccount()).toBe(before);
    await page.goto(`${web.url}/dashboard/profile?lang=en`);
    await page.getByLabel('Settlement bank account (0000-00-000000)').fill('0133-26-654321');
    await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Save profile' }).click()]);
    await page.getByRole('heading', { name: 'Confirm it is you' }).waitFor();
    expect(await bankAccount()).toBe(before);
    for (const width of [390, 1280]) {
      await page.setViewportSize({ width, height: 900 });
      await checkLayout(page, `re-authentication at ${width}`);
    }
    // A wrong password: still nothing changed.
    await page.getByLabel('Password').fill('not the password at all');
    await page.getByLabel('Authentication code').fill(codeFor(ownerSecret));
    await Promise.all([
      page.waitForNavigation(),
      page.getByRole('button', { name: 'Confirm and carry on' }).click(),
    ]);
    await page.getByText('That did not match. Nothing was changed.').waitFor();
    expect(await bankAccount()).toBe(before);
    // Password and second factor (the app's codes of this half-minute are spent by the sign-ins
    // above, so a recovery code): the change the member asked for goes through, as they posted it.
    await page.getByLabel('Password').fill(owner.password);
    await page.getByLabel('Authentication code').fill(ownerRecovery[2]!);
    await Promise.all([
      page.waitForNavigation(),
      page.getByRole('button', { name: 'Confirm and carry on' }).click(),
    ]);
    await page.getByText('Profile saved.').waitFor();
    expect(await bankAccount()).toBe('0133-26-654321');
    // Within the window, the next change goes straight through.
    await page.getByLabel('Settlement bank account (0000-00-000000)').fill('0133-26-111111');
    await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Save profile' }).click()]);
    await page.getByText('Profile saved.').waitFor();
    expect(await bankAccount()).toBe('0133-26-111111');
  } finally {
    await context.close();
  }
});

test('wrong codes lock the address as wrong passwords do', async () => {
  const member = await createMerchantUser(web.knex, merchant.id, 'developer');
  const client = new WebClient(web.url);
  expect((await client.signIn(member.email, member.password)).location).toBe('/dashboard/home');
  const { secret } = await enrolOverHttp(client);
  const again = new WebClient(web.url);
  const first = await again.signIn(member.email, member.password);
  expect(first.location).toMatch(/^\/dashboard\/sign-in\/code/);
  await again.get('/dashboard/sign-in/code');
  const statuses: number[] = [];
  for (let i = 0; i < 5; i++)
    statuses.push((await again.post('/dashboard/sign-in/code', { code: '000000' })).status);
  expect(statuses).toEqual([401, 401, 401, 401, 429]);
  // Locked: even the right code is refused now, and so is the password.
  expect((await again.post('/dashboard/sign-in/code', { code: codeFor(secret, 1) })).status).toBe(429);
  expect((await new WebClient(web.url).signIn(member.email, member.password)).status).toBe(429);
});

test('a required second factor comes first; an operator reset is audited; turning it off asks again', async () => {
  const other = await web.merchant('Krafa ehf.');
  const boss = await createMerchantUser(web.knex, other.id);
  const dev = await createMerchantUser(web.knex, other.id, 'developer');
  const bossClient = new WebClient(web.url);
  await bossClient.signIn(boss.email, boss.password);
  await bossClient.get('/dashboard/security');
  // Requiring it of everyone needs one's own first.
  const early = await bossClient.post('/dashboard/security/settings', {
    require_second_factor: 'on',
    reauth_refund_above: '100000',
  });
  expect(early.status).toBe(409);
  const { secret } = await enrolOverHttp(bossClient);
  await bossClient.get('/dashboard/security');
  expect(
    (
      await bossClient.post('/dashboard/security/settings', {
        require_second_factor: 'on',
        reauth_refund_above: '100000',
      })
    ).status,
  ).toBe(200);

  // The developer signs in with a password alone and is held at the security page.
  const devClient = new WebClient(web.url);
  expect((await devClient.signIn(dev.email, dev.password)).location).toBe('/dashboard/security');
  expect((await devClient.get('/dashboard/payments')).location).toBe('/dashboard/security');
  expect((await devClient.get('/dashboard/security')).text).toContain(
    'Your account requires a second factor',
  );
  await enrolOverHttp(devClient);
  expect((await devClient.get('/dashboard/payments')).status).toBe(200);

  // The developer loses the phone; an operator resets it, and the audit log says who did.
  const operator = await createOperator(web.knex);
  const ops = new WebClient(web.url);
  await ops.signIn(operator.email, operator.password);
  await ops.get('/dashboard/operator/second-factor');
  const reset = await ops.post('/dashboard/operator/second-factor', { email: dev.email });
  expect(reset.status).toBe(200);
  expect((await devClient.get('/dashboard/payments')).location).toMatch(/^\/dashboard\/sign-in/);
  const audit = await web.knex('audit_log').where({ action: 'user.second_factor_reset', object_id: dev.id });
  expect(audit).toHaveLength(1);
  expect(audit[0]).toMatchObject({ actor_kind: 'operator', actor_id: operator.id, merchant_id: other.id });
  expect((await ops.post('/dashboard/operator/second-factor', { email: dev.email })).status).toBe(409);
  expect((await new WebClient(web.url).signIn(dev.email, dev.password)).location).toBe('/dashboard/security');

  // Turning the requirement off, after the window, asks for password and code and does nothing until then.
  await web
    .knex('dashboard_sessions')
    .where({ user_id: boss.id })
    .update({
      authenticated_at: web.knex.raw("now() - interval '10 minutes'"),
    });
  await bossClient.get('/dashboard/security');
  const off = await bossClient.post('/dashboard/security/settings', { reauth_refund_above: '100000' });
  expect(off.status).toBe(401);
  expect(off.text).toContain('Confirm it is you');
  const still = await web.knex('merchants').where({ id: other.id }).first('require_second_factor');
  expect(still.require_second_factor).toBe(true);
  const confirmed = await bossClient.post('/dashboard/security/settings', {
    reauth_refund_above: '100000',
    _reauth: '1',
    _reauth_password: boss.password,
    _reauth_code: codeFor(secret, 1),
  });
  expect(confirmed.status).toBe(200);
  const after = await web.knex('merchants').where({ id: other.id }).first('require_second_factor');
  expect(after.require_second_factor).toBe(false);
});

test('add a passkey with a virtual authenticator and sign in with it', async () => {
  const member = await createMerchantUser(web.knex, merchant.id, 'finance');
  // The authenticator app first, over HTTP; its recovery codes cover the passkey too (decision 0223).
  const client = new WebClient(web.url);
  await client.signIn(member.email, member.password);
  const { secret } = await enrolOverHttp(client);

  // WebAuthn refuses IP addresses: the browser uses the loopback name the server expects.
  const origin = web.url.replace('127.0.0.1', 'localhost');
  const context = await browser.newContext({ bypassCSP: false });
  const page = await context.newPage();
  await page.route('**/*', (route) =>
    route
      .request()
      .url()
      .startsWith(origin + '/')
      ? route.continue()
      : route.abort(),
  );
  const errors: string[] = [];
  page.on('pageerror', (err) => errors.push(err.message));
  try {
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: {
        protocol: 'ctap2',
        transport: 'internal',
        hasResidentKey: true,
        hasUserVerification: true,
        isUserVerified: true,
        automaticPresenceSimulation: true,
      },
    });
    await page.goto(`${origin}/dashboard/sign-in?lang=en`);
    await page.getByLabel('Email').fill(member.email);
    await page.getByLabel('Password').fill(member.password);
    await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Sign in' }).click()]);
    await submitCode(page, codeFor(secret, 1));
    await page.goto(`${origin}/dashboard/security?lang=en`);
    await page.getByText('No passkey yet.').waitFor();
    await Promise.all([
      page.waitForNavigation(),
      page.getByRole('button', { name: 'Add a passkey' }).click(),
    ]);
    await Promise.all([
      page.waitForNavigation(),
      page.getByRole('button', { name: 'Create a passkey' }).click(),
    ]);
    await page.getByText('Passkey added.').waitFor();
    for (const width of [390, 1280]) {
      await page.setViewportSize({ width, height: 900 });
      await checkLayout(page, `security with a passkey at ${width}`);
    }
    await page.getByText('One passkey.').waitFor();
    const stored = await web.knex('user_passkeys').where({ user_id: member.id });
    expect(stored).toHaveLength(1);
    const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    expect(credentials).toHaveLength(1);
    expect(stored[0].id).toBe(
      credentials[0]!.credentialId.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, ''),
    );

    await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Sign out' }).click()]);
    await page.getByLabel('Email').fill(member.email);
    await page.getByLabel('Password').fill(member.password);
    await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Sign in' }).click()]);
    expect(new URL(page.url()).pathname).toBe('/dashboard/sign-in/code');
    await checkLayout(page, 'code step with a passkey');
    await Promise.all([
      page.waitForNavigation(),
      page.getByRole('button', { name: 'Use a passkey' }).click(),
    ]);
    expect(new URL(page.url()).pathname).toBe('/dashboard/home');
    // The signature counter moved on with the use.
    const used = await web.knex('user_passkeys').where({ user_id: member.id }).first();
    expect(used.last_used_at).not.toBeNull();
    expect(errors).toEqual([]);
  } finally {
    await context.close();
  }
});

test('a role change, a live key and a refund above the amount ask again; a small refund does not', async () => {
  const shop = await web.merchant('Verðir ehf.');
  const boss = await createMerchantUser(web.knex, shop.id);
  const clerk = await createMerchantUser(web.knex, shop.id, 'read_only');
  const client = new WebClient(web.url);
  await client.signIn(boss.email, boss.password);
  const { codes } = await enrolOverHttp(client);
  const card = { number: '4242424242424242', exp_month: 12, exp_year: 2040, cvc: '123' };
  const pay = async (amount: number) => {
    const res = await fetch(`${web.url}/v1/payment-intents`, {
      method: 'POST',
      headers: { authorization: `Bearer ${shop.testKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ amount, card, confirm: true }),
    });
    const body = (await res.json()) as { id: string; status: string };
    expect(body.status).toBe('succeeded');
    return body.id;
  };
  const [large, small] = await Promise.all([pay(150_000), pay(5_000)]);
  // Approved for live (the operator's review is another test's subject).
  await web.knex('merchants').where({ id: shop.id }).update({ application_status: 'approved' });
  // The clock moves on past the window.
  await web
    .knex('dashboard_sessions')
    .where({ user_id: boss.id })
    .update({
      authenticated_at: web.knex.raw("now() - interval '10 minutes'"),
    });
  const refunded = async (id: string) =>
    Number((await web.knex('refunds').where({ payment_intent_id: id }).sum('amount as s').first())?.s ?? 0);

  await client.get('/dashboard/team');
  const role = await client.post(`/dashboard/team/members/${clerk.id}/role`, { role: 'finance' });
  expect(role.status).toBe(401);
  expect((await web.knex('users').where({ id: clerk.id }).first()).role).toBe('read_only');

  await client.get('/dashboard/api-keys');
  const live = await client.post('/dashboard/api-keys', { mode: 'live' });
  expect(live.status).toBe(401);
  expect(live.text).not.toContain('sk_live_');
  // A test key is not guarded.
  expect((await client.post('/dashboard/api-keys', { mode: 'test' })).text).toContain('sk_test_');

  await client.get(`/dashboard/payments/${small}`);
  expect((await client.post(`/dashboard/payments/${small}/refund`, { amount: '' })).status).toBe(200);
  expect(await refunded(small)).toBe(5_000);
  await client.get(`/dashboard/payments/${large}`);
  const refund = await client.post(`/dashboard/payments/${large}/refund`, { amount: '' });
  expect(refund.status).toBe(401);
  expect(await refunded(large)).toBe(0);
  // Answered: the refund goes through as first posted, once.
  const done = await client.post(`/dashboard/payments/${large}/refund`, {
    amount: '',
    _reauth: '1',
    _reauth_password: boss.password,
    _reauth_code: codes[0]!,
  });
  expect(done.status).toBe(200);
  expect(await refunded(large)).toBe(150_000);
  // Within the window now: the role change goes straight through.
  await client.get('/dashboard/team');
  expect((await client.post(`/dashboard/team/members/${clerk.id}/role`, { role: 'finance' })).status).toBe(
    200,
  );
  expect((await web.knex('users').where({ id: clerk.id }).first()).role).toBe('finance');
});

test('one code raced from four sign-ins at once opens exactly one', async () => {
  const member = await createMerchantUser(web.knex, merchant.id, 'read_only');
  const first = new WebClient(web.url);
  await first.signIn(member.email, member.password);
  const { secret } = await enrolOverHttp(first);
  // Four pending sign-ins (fewer than the five failures that lock, so the lock decides nothing).
  const clients = Array.from({ length: 4 }, () => new WebClient(web.url));
  for (const c of clients) {
    expect((await c.signIn(member.email, member.password)).location).toMatch(/^\/dashboard\/sign-in\/code/);
    await c.get('/dashboard/sign-in/code');
  }
  const code = codeFor(secret, 1);
  const results = await Promise.all(clients.map((c) => c.post('/dashboard/sign-in/code', { code })));
  expect(results.map((r) => r.status).sort()).toEqual([303, 401, 401, 401]);
});
