import type { Browser } from 'playwright-core';
import { createMerchantUser, type TestUser } from '../helpers/accounts';
import { launchChromium, openPage, signInWithKeyboard, tabTo } from '../helpers/browser';
import { startWebStack, type WebStack } from '../helpers/web-stack';

/**
 * Done-means 3: the device flow in a real headless Chromium. A client (this test, acting as the
 * CLI) asks for a code and polls as RFC 8628 says; the browser opens verification_url, signs in and
 * approves using only the keyboard; the poll receives a key that authenticates GET /v1/merchant.
 */

// Browser globals for the callbacks that run inside page.evaluate (the project compiles without lib "dom").
declare const document: any;
declare const getComputedStyle: (el: unknown) => any;

let web: WebStack;
let browser: Browser;
let merchant: { id: string; testKey: string };
let user: TestUser;

beforeAll(async () => {
  [web, browser] = await Promise.all([startWebStack(), launchChromium()]);
  merchant = await web.merchant('Chromium ehf.');
  user = await createMerchantUser(web.knex, merchant.id);
});
afterAll(async () => {
  await browser?.close();
  await web?.stop();
});

async function json(path: string, init: RequestInit = {}) {
  const res = await fetch(web.url + path, init);
  return { status: res.status, body: (await res.json()) as any };
}

/** What a CLI does: poll every poll_interval, slowing down when told, until a key or an error. */
async function pollForKey(deviceCode: string, interval: number, deadlineMs: number) {
  const answers: string[] = [];
  for (;;) {
    const res = await json(`/v1/device/token?device_code=${encodeURIComponent(deviceCode)}`);
    if (res.status === 200) return { token: res.body, answers };
    const code = String(res.body.error.code);
    answers.push(code);
    if (code === 'slow_down') interval += 5;
    else if (code !== 'authorization_pending') throw new Error(`device flow failed: ${code}`);
    if (Date.now() + interval * 1000 > deadlineMs)
      throw new Error(`no key before the deadline: ${answers.join(', ')}`);
    await new Promise((r) => setTimeout(r, interval * 1000));
  }
}

test('authorize, open verification_url, sign in, approve, poll until the key arrives; the key works', async () => {
  const started = await json('/v1/device/authorize', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'skil-cli on laptop' }),
  });
  expect(started.status).toBe(200);
  const { device_code, user_code, verification_url, poll_interval, expires_in } = started.body;
  expect(verification_url).toBe(`${web.url}/device?user_code=${user_code}`);
  const polling = pollForKey(device_code, poll_interval, Date.now() + Math.min(expires_in, 40) * 1000);

  const { page, context, errors } = await openPage(browser, web.url);
  try {
    await page.goto(verification_url);
    // Not signed in: the sign-in page, which will come back to the code.
    expect(new URL(page.url()).pathname).toBe('/dashboard/sign-in');
    await signInWithKeyboard(page, user.email, user.password);
    expect(page.url()).toBe(verification_url);
    await expect(page.getByTestId('client-name').innerText()).resolves.toBe('skil-cli on laptop');
    await expect(page.getByTestId('user-code').innerText()).resolves.toBe(user_code);

    await tabTo(page, 'Approve');
    await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);
    await expect(page.getByTestId('device-result').innerText()).resolves.toMatch(/^Approved/);
    expect(errors).toEqual([]);
  } finally {
    await context.close();
  }

  const { token, answers } = await polling;
  expect(answers[0]).toBe('authorization_pending');
  expect(token).toMatchObject({ object: 'device_token', livemode: false, merchant_id: merchant.id });
  expect(token.api_key).toMatch(/^sk_test_/);

  const me = await json('/v1/merchant', { headers: { authorization: `Bearer ${token.api_key}` } });
  expect(me.status).toBe(200);
  expect(me.body).toMatchObject({ object: 'merchant', id: merchant.id, livemode: false });

  // Returned once: the next poll does not carry it.
  const again = await json(`/v1/device/token?device_code=${encodeURIComponent(device_code)}`);
  expect(again.status).toBe(400);
  expect(JSON.stringify(again.body)).not.toContain(token.api_key);
});

test('the theme preview renders hostile-looking but valid values inert: exact CSS values, one img, no script but our own', async () => {
  const logo = `${web.url.replace('http://', 'https://')}/x;}body{display:none}(%22)&amp=1#</a>`.replace(
    /[<>]/g,
    '',
  );
  const theme = {
    primary_color: '#aB12cD80',
    background_color: '#fff',
    font_family: 'A-1 b  Sans',
    heading_font_family: '9 x-y',
    button_roundness: 'pill',
    logo_url: logo,
  };
  const set = await json('/v1/merchant/theme/', {
    method: 'PATCH',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${merchant.testKey}` },
    body: JSON.stringify(theme),
  });
  expect(set.status).toBe(200);

  const { page, context, blocked, errors } = await openPage(browser, web.url);
  try {
    await page.goto(`${web.url}/dashboard/theme`);
    await signInWithKeyboard(page, user.email, user.password);
    expect(new URL(page.url()).pathname).toBe('/dashboard/theme');
    const seen = await page.evaluate(() => {
      const preview = document.querySelector('.skil-checkout')!;
      const style = getComputedStyle(preview);
      const imgs: any[] = [...preview.querySelectorAll('img')];
      return {
        primary: style.getPropertyValue('--skil-primary').trim(),
        background: style.getPropertyValue('--skil-background').trim(),
        font: style.getPropertyValue('--skil-font').trim(),
        heading: style.getPropertyValue('--skil-heading-font').trim(),
        radius: getComputedStyle(preview.querySelector('.skil-pay')).borderTopLeftRadius,
        children: [...preview.children].map((c: any) => c.tagName),
        imgSrc: imgs.map((i) => i.getAttribute('src')),
        // Only the live preview's own file (decision 0148): nothing inline, nothing from the theme.
        scripts: [...document.querySelectorAll('script')].map((s) => s.getAttribute('src')),
        bodyVisible: getComputedStyle(document.body).display !== 'none',
      };
    });
    expect(seen).toEqual({
      primary: '#aB12cD80',
      background: '#fff',
      font: '"A-1 b  Sans", system-ui, sans-serif',
      heading: '"9 x-y", system-ui, sans-serif',
      radius: '999px',
      children: ['IMG', 'P', 'P', 'BUTTON'],
      imgSrc: [logo],
      scripts: ['/dashboard/assets/theme-preview.js'],
      bodyVisible: true,
    });
    // The Google Fonts stylesheet was requested (and refused here: no internet in tests).
    expect(blocked.some((u) => u.startsWith('https://fonts.googleapis.com/css2?family=A-1+b++Sans'))).toBe(
      true,
    );
    expect(errors.filter((e) => /Content Security Policy/i.test(e))).toEqual([]);
  } finally {
    await context.close();
  }
});

test('the first Tab reaches the skip link, and every control of the API keys page is reachable', async () => {
  const { page, context } = await openPage(browser, web.url);
  try {
    await page.goto(`${web.url}/dashboard/api-keys`);
    await signInWithKeyboard(page, user.email, user.password);
    await page.keyboard.press('Tab');
    await expect(page.evaluate(() => document.activeElement.innerText)).resolves.toBe('Skip to content');
    await tabTo(page, 'Create key');
    await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);
    await expect(page.getByTestId('new-secret').innerText()).resolves.toMatch(/^sk_test_/);
  } finally {
    await context.close();
  }
});
