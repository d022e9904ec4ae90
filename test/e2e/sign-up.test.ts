import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium } from '../helpers/browser';
import { startWebStack, type WebStack } from '../helpers/web-stack';
import { seriousAccessibilityFindings } from '../helpers/accessibility';
import { WebClient } from '../helpers/accounts';
import { linkIn } from '../helpers/mail';
import { randomBase62 } from '../../domain/ids';

/**
 * Issue 21, Done means 1 (its first part) and item 1: a new merchant signs up in Chromium with the
 * keyboard, gets its test key on the page at once (no verification), reads the verification email
 * in the local mail catcher's page, follows its link and verifies. Until then test mode works and
 * the live application is refused.
 */

let web: WebStack;
let browser: Browser;

beforeAll(async () => {
  [web, browser] = await Promise.all([startWebStack(), launchChromium()]);
});
afterAll(async () => {
  await browser?.close();
  await web?.stop();
});

/** A page that may reach the API and the mail catcher, nothing else. */
async function openPage(): Promise<{ page: Page; context: BrowserContext }> {
  // bypassCSP: the accessibility check injects axe-core into pages whose policy allows no script.
  const context = await browser.newContext({ bypassCSP: true });
  const page = await context.newPage();
  await page.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith(web.url + '/') || url.startsWith(web.mail.pageUrl + '/')) return route.continue();
    return route.abort();
  });
  return { page, context };
}

const newEmail = () => `owner-${randomBase62(8).toLowerCase()}@example.test`;
const PASSWORD = 'correct horse battery staple';

async function api(key: string, path: string, init: RequestInit = {}) {
  const res = await fetch(web.url + path, {
    ...init,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
  });
  return { status: res.status, body: (await res.json()) as any };
}

test('sign up with the keyboard: the test key at once, then verify the email from the catcher', async () => {
  const email = newEmail();
  const { page, context } = await openPage();
  try {
    await page.goto(`${web.url}/dashboard/sign-up`);
    expect(await seriousAccessibilityFindings(page)).toEqual([]);
    await page.getByLabel('Business name').focus();
    await page.keyboard.type('Kaffi Kyrrð ehf.');
    await page.keyboard.press('Tab');
    await page.keyboard.type(email);
    await page.keyboard.press('Tab');
    await page.keyboard.type(PASSWORD);
    await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);

    const key = (await page.getByTestId('test-key').innerText()).trim();
    expect(key).toMatch(/^sk_test_/);
    expect(await seriousAccessibilityFindings(page)).toEqual([]);

    // Test mode works at once, with no verification.
    const merchant = await api(key, '/v1/merchant');
    expect(merchant.status).toBe(200);
    expect(merchant.body.name).toBe('Kaffi Kyrrð ehf.');
    const customer = await api(key, '/v1/customers', {
      method: 'POST',
      body: JSON.stringify({ email: 'buyer@example.test' }),
    });
    expect(customer.status).toBe(200);
    // The live application waits for the email.
    const early = await api(key, '/v1/merchant/submit', { method: 'POST', body: '{}' });
    expect(early.status).toBe(403);
    expect(early.body.error.code).toBe('email_not_verified');

    // The verification email, read on the catcher's page, its link clicked.
    const mail = await web.mail.waitFor((m) => m.to.includes(email));
    expect(linkIn(mail, `${web.url}/dashboard/verify-email?token=`)).toBeTruthy();
    await page.goto(web.mail.pageUrl + '/');
    await Promise.all([page.waitForNavigation(), page.getByRole('link', { name: mail.subject }).click()]);
    await Promise.all([
      page.waitForNavigation(),
      page.getByRole('link', { name: /\/dashboard\/verify-email\?token=/ }).click(),
    ]);
    expect(new URL(page.url()).pathname).toBe('/dashboard/verify-email');
    await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Verify email' }).click()]);
    await page.getByText(`${email} is verified`).waitFor();

    const row = await web.knex('users').where({ email }).first();
    expect(row.email_verified_at).not.toBeNull();
    expect(row.role).toBe('owner');
    // A password a person sets is hashed at the real cost (fixture users are cheaper: helpers/accounts.ts).
    expect(row.password_hash).toMatch(/^scrypt\$32768\$8\$3\$/);
    // Verified: the application is no longer refused for the email (only for what it lacks).
    const later = await api(key, '/v1/merchant/submit', { method: 'POST', body: '{}' });
    expect(later.status).toBe(422);
    expect(later.body.error.code).toBe('application_incomplete');

    // The link is single-use.
    await page.goto(linkIn(mail, `${web.url}/dashboard/verify-email?token=`));
    await page.getByText('This link has expired or was used already').waitFor();
  } finally {
    await context.close();
  }
});

test('the sign-up page in Icelandic', async () => {
  const { page, context } = await openPage();
  try {
    await page.goto(`${web.url}/dashboard/sign-up?lang=is`);
    expect(await page.getAttribute('html', 'lang')).toBe('is');
    await page.getByLabel('Nafn fyrirtækis').fill('Bakarí ehf.');
    await page.getByLabel('Netfang').fill('ekki-netfang');
    await page.getByLabel('Lykilorð').fill('stutt');
    await page.getByRole('button', { name: 'Stofna aðgang' }).click();
    expect(await page.locator('#password-error').innerText()).toBe(
      'Lykilorðið þarf að vera minnst 12 stafir.',
    );
    expect(await page.getByRole('alert').innerText()).toContain('Lagaðu');
    expect(await seriousAccessibilityFindings(page)).toEqual([]);
  } finally {
    await context.close();
  }
});

describe('sign-up form posts', () => {
  async function form(): Promise<WebClient> {
    const client = new WebClient(web.url);
    expect((await client.get('/dashboard/sign-up')).status).toBe(200);
    return client;
  }

  test('bad input re-shows the form with a message per field, never a 500', async () => {
    const cases: [Record<string, string>, RegExp][] = [
      [{ business_name: '', email: newEmail(), password: PASSWORD }, /Enter your business name/],
      [{ business_name: 'x'.repeat(256), email: newEmail(), password: PASSWORD }, /255 characters/],
      [{ business_name: 'A', email: 'not-an-email', password: PASSWORD }, /valid email address/],
      [{ business_name: 'A', email: newEmail(), password: 'short' }, /at least 12 characters/],
      [{ business_name: 'A', email: newEmail(), password: 'p'.repeat(300) }, /at most 256 characters/],
      [{ business_name: 'A', email: `${'a'.repeat(330)}@x.is`, password: PASSWORD }, /valid email address/],
      [{}, /Enter your business name/],
    ];
    const merchants = async () => Number((await web.knex('merchants').count('* as n').first())!.n);
    const before = await merchants();
    for (const [fields, message] of cases) {
      const client = await form();
      const res = await client.post('/dashboard/sign-up', fields);
      expect(res.status).toBe(400);
      expect(res.text).toMatch(message);
      expect(res.text).toContain('<form');
    }
    expect(await merchants()).toBe(before);
  });

  test('a form without its CSRF token is refused', async () => {
    const client = await form();
    const res = await client.post('/dashboard/sign-up', {
      _csrf: 'x'.repeat(32),
      business_name: 'A',
      email: newEmail(),
      password: PASSWORD,
    });
    expect(res.status).toBe(403);
  });

  test('an address that has an account already is refused, also when the sign-ups race', async () => {
    for (let round = 0; round < 4; round++) {
      const email = newEmail();
      const clients = await Promise.all(Array.from({ length: 3 }, () => form()));
      const answers = await Promise.all(
        clients.map((c, i) =>
          c.post('/dashboard/sign-up', { business_name: `Race ${i}`, email, password: PASSWORD }),
        ),
      );
      expect(answers.map((a) => a.status).sort()).toEqual([200, 400, 400]);
      for (const a of answers.filter((x) => x.status === 400))
        expect(a.text).toMatch(/already has an account/);
      const users = await web.knex('users').whereRaw('lower(email) = ?', [email]);
      expect(users).toHaveLength(1);
    }
    const merchants = await web.knex('merchants').count('* as n').first();
    const users = await web.knex('users').where({ kind: 'merchant' }).count('* as n').first();
    expect(merchants!.n).toBe(users!.n);
  });
});
