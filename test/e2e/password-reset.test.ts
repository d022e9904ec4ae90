import type { Browser } from 'playwright-core';
import { launchChromium, openPage as openTestPage, signInWithKeyboard } from '../helpers/browser';
import { startWebStack, type WebStack } from '../helpers/web-stack';
import { seriousAccessibilityFindings } from '../helpers/accessibility';
import { WebClient, createMerchantUser, type TestUser } from '../helpers/accounts';
import { linkIn } from '../helpers/mail';

/**
 * Issue 21, Done means 2 (first half): a forgotten password is reset by email in Chromium, from the
 * sign-in page to signing in with the new password. The link works once, expires, is stored only
 * hashed, and the answer to "send me a link" is the same for an address with no account.
 */

let web: WebStack;
let browser: Browser;
let user: TestUser;

beforeAll(async () => {
  [web, browser] = await Promise.all([startWebStack(), launchChromium()]);
  const merchant = await web.merchant('Gleymska ehf.');
  user = await createMerchantUser(web.knex, merchant.id);
});
afterAll(async () => {
  await browser?.close();
  await web?.stop();
});

const openPage = () => openTestPage(browser, web.url, { bypassCSP: true });

const NEW_PASSWORD = 'a brand new passphrase 42';

test('forgot password: ask on the sign-in page, follow the emailed link, choose, sign in with it', async () => {
  // A session from before the reset, which the reset must end.
  const earlier = new WebClient(web.url);
  expect((await earlier.signIn(user.email, user.password)).status).toBe(303);

  const { page, context } = await openPage();
  try {
    await page.goto(`${web.url}/dashboard/sign-in`);
    await Promise.all([
      page.waitForNavigation(),
      page.getByRole('link', { name: 'Forgot your password?' }).click(),
    ]);
    expect(await seriousAccessibilityFindings(page)).toEqual([]);
    await page.getByLabel('Email').fill(user.email.toUpperCase());
    await Promise.all([
      page.waitForNavigation(),
      page.getByRole('button', { name: 'Send reset link' }).click(),
    ]);
    await page.getByText('a link to choose a new password is on its way').waitFor();

    const mail = await web.mail.waitFor((m) => m.to.includes(user.email) && /password/i.test(m.subject));
    const link = linkIn(mail, `${web.url}/dashboard/reset-password?token=`);
    // Stored only as its hash.
    const token = new URL(link).searchParams.get('token')!;
    const rows = await web.knex('account_tokens').where({ purpose: 'reset_password' });
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows)).not.toContain(token);

    await page.goto(link);
    expect(await seriousAccessibilityFindings(page)).toEqual([]);
    await page.getByLabel('New password').fill('too short');
    await Promise.all([
      page.waitForNavigation(),
      page.getByRole('button', { name: 'Save new password' }).click(),
    ]);
    expect(await page.locator('#password-error').innerText()).toContain('at least 12 characters');
    await page.getByLabel('New password').fill(NEW_PASSWORD);
    await Promise.all([
      page.waitForNavigation(),
      page.getByRole('button', { name: 'Save new password' }).click(),
    ]);
    await page.getByText('Your password is changed').waitFor();

    await page.goto(`${web.url}/dashboard/sign-in`);
    await signInWithKeyboard(page, user.email, NEW_PASSWORD);
    expect(new URL(page.url()).pathname).toBe('/dashboard/home');

    // The link is spent; the old password and the earlier session are over.
    await page.goto(link);
    await page.getByText('This link has expired or was used already').waitFor();
    expect((await new WebClient(web.url).signIn(user.email, user.password)).status).toBe(401);
    expect((await earlier.get('/dashboard/profile')).status).toBe(303);
    user.password = NEW_PASSWORD;
  } finally {
    await context.close();
  }
});

test('the answer is the same for an address with no account, and no mail goes out', async () => {
  const ask = async (email: string) => {
    const client = new WebClient(web.url);
    await client.get('/dashboard/reset-password');
    const res = await client.post('/dashboard/reset-password', { email });
    return { status: res.status, text: res.text.replaceAll(email, 'EMAIL') };
  };
  const before = web.mail.messages().length;
  const known = await ask(user.email);
  const unknown = await ask('nobody-here@example.test');
  expect(unknown.status).toBe(200);
  expect(unknown.status).toBe(known.status);
  const main = (s: string) => /<main[\s\S]*<\/main>/.exec(s)![0].replace(/name="_csrf" value="\w+"/g, '');
  expect(main(unknown.text)).toBe(main(known.text));
  await web.mail.waitFor((m) => m.to.includes(user.email) && web.mail.messages().indexOf(m) >= before);
  await new Promise((r) => setTimeout(r, 500));
  expect(web.mail.messages().some((m) => m.to.includes('nobody-here@example.test'))).toBe(false);

  const bad = new WebClient(web.url);
  await bad.get('/dashboard/reset-password');
  const res = await bad.post('/dashboard/reset-password', { email: 'not an address' });
  expect(res.status).toBe(400);
  expect(res.text).toContain('Enter a valid email address');
});

test('one link, used by many at once, resets once; an expired link does nothing', async () => {
  for (let round = 0; round < 3; round++) {
    const since = web.mail.messages().length;
    const client = new WebClient(web.url);
    await client.get('/dashboard/reset-password');
    await client.post('/dashboard/reset-password', { email: user.email });
    const mail = await web.mail.waitFor(
      (m) => m.to.includes(user.email) && web.mail.messages().indexOf(m) >= since,
    );
    const link = linkIn(mail, `${web.url}/dashboard/reset-password?token=`);
    const token = new URL(link).searchParams.get('token')!;
    const clients = await Promise.all(
      Array.from({ length: 4 }, async () => {
        const c = new WebClient(web.url);
        await c.get(`/dashboard/reset-password?token=${token}`);
        return c;
      }),
    );
    const answers = await Promise.all(
      clients.map((c, i) =>
        c.post('/dashboard/reset-password/new', { token, password: `${NEW_PASSWORD} ${round}${i}` }),
      ),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([200, 400, 400, 400]);
    const winner = answers.findIndex((a) => a.status === 200);
    user.password = `${NEW_PASSWORD} ${round}${winner}`;
    expect((await new WebClient(web.url).signIn(user.email, user.password)).status).toBe(303);
  }

  // An hour later the link is dead (the row's clock moved back stands for the hour passing).
  const since = web.mail.messages().length;
  const client = new WebClient(web.url);
  await client.get('/dashboard/reset-password');
  await client.post('/dashboard/reset-password', { email: user.email });
  const mail = await web.mail.waitFor(
    (m) => m.to.includes(user.email) && web.mail.messages().indexOf(m) >= since,
  );
  const link = linkIn(mail, `${web.url}/dashboard/reset-password?token=`);
  await web
    .knex('account_tokens')
    .whereNull('used_at')
    .update({ expires_at: web.knex.raw("now() - interval '1 second'") });
  const late = new WebClient(web.url);
  expect((await late.get(new URL(link).pathname + new URL(link).search)).status).toBe(400);
  await late.get('/dashboard/reset-password');
  const res = await late.post('/dashboard/reset-password/new', {
    token: new URL(link).searchParams.get('token')!,
    password: 'too late for this one',
  });
  expect(res.status).toBe(400);
  expect((await new WebClient(web.url).signIn(user.email, user.password)).status).toBe(303);
});
