import type { Browser, Page } from 'playwright-core';
import { createMerchantUser, type TestUser } from '../helpers/accounts';
import { launchChromium, openPage, signInWithKeyboard } from '../helpers/browser';
import { startWebStack, type WebStack } from '../helpers/web-stack';
import { seriousAccessibilityFindings } from '../helpers/accessibility';

/**
 * The merchant's settings pages (profile, checkout theme, API keys) in Chromium in both languages:
 * `?lang=` chooses the page's language, `<html lang>` says it, the heading and the form controls'
 * accessible names are in it, and a form used in Icelandic answers in Icelandic.
 */

// Browser globals for the callbacks that run inside page.evaluate (the project compiles without lib "dom").
declare const document: any;

let web: WebStack;
let browser: Browser;
let merchant: { id: string; testKey: string };
let owner: TestUser;

beforeAll(async () => {
  [web, browser] = await Promise.all([startWebStack(), launchChromium()]);
  merchant = await web.merchant('Stillingar ehf.');
  owner = await createMerchantUser(web.knex, merchant.id, 'owner');
});
afterAll(async () => {
  await browser?.close();
  await web?.stop();
});

const api = async (path: string, key = merchant.testKey) => {
  const res = await fetch(`${web.url}${path}`, { headers: { authorization: `Bearer ${key}` } });
  return { status: res.status, body: (await res.json()) as any };
};

/** Each page's heading and one form control (its role and accessible name), in each language. */
const PAGES = [
  {
    path: '/dashboard/profile',
    en: { heading: 'Profile', control: ['textbox', 'Business name'] },
    is: { heading: 'Upplýsingar', control: ['textbox', 'Heiti fyrirtækis'] },
  },
  {
    path: '/dashboard/theme',
    en: { heading: 'Checkout theme', control: ['textbox', 'Primary colour'] },
    is: { heading: 'Útlit greiðslusíðu', control: ['textbox', 'Aðallitur'] },
  },
  {
    path: '/dashboard/api-keys',
    en: { heading: 'API keys', control: ['combobox', 'New key'] },
    is: { heading: 'API-lyklar', control: ['combobox', 'Nýr lykill'] },
  },
] as const;

const htmlLang = (page: Page) => page.evaluate(() => document.documentElement.lang as string);

test('profile, theme and API keys in Icelandic and English at phone and desk widths; a key made and rolled, and a theme saved, in Icelandic', async () => {
  const { page, context, errors } = await openPage(browser, web.url);
  try {
    await page.goto(`${web.url}/dashboard/api-keys`);
    await signInWithKeyboard(page, owner.email, owner.password);
    // No language asked for and none in the browser's request: English.
    expect(await htmlLang(page)).toBe('en');
    await expect(page.locator('main h1').innerText()).resolves.toBe('API keys');

    for (const width of [390, 1280])
      for (const lang of ['is', 'en'] as const)
        for (const p of PAGES) {
          await page.setViewportSize({ width, height: 800 });
          const res = await page.goto(`${web.url}${p.path}?lang=${lang}`);
          const where = `${p.path} (${lang}, ${width} px)`;
          expect({ where, status: res!.status(), lang: await htmlLang(page) }).toEqual({
            where,
            status: 200,
            lang,
          });
          expect({ where, heading: await page.locator('main h1').innerText() }).toEqual({
            where,
            heading: p[lang].heading,
          });
          const [role, name] = p[lang].control;
          expect({ where, controls: await page.getByRole(role, { name, exact: true }).count() }).toEqual({
            where,
            controls: 1,
          });
          expect({ where, findings: await seriousAccessibilityFindings(page) }).toEqual({
            where,
            findings: [],
          });
        }

    // Icelandic is remembered from ?lang=is, so the forms' answers come back in it.
    await page.goto(`${web.url}/dashboard/api-keys?lang=is`);
    await page.getByRole('combobox', { name: 'Nýr lykill' }).selectOption('test');
    await Promise.all([
      page.waitForNavigation(),
      page.getByRole('button', { name: 'Búa til lykil' }).click(),
    ]);
    expect(await htmlLang(page)).toBe('is');
    await expect(page.getByRole('status').innerText()).resolves.toContain(
      'Nýi prufulykillinn þinn. Afritaðu hann núna: hann birtist aðeins einu sinni.',
    );
    const secret = (await page.getByTestId('new-secret').innerText()).trim();
    expect(secret).toMatch(/^sk_test_/);
    expect((await api('/v1/merchant', secret)).body.id).toBe(merchant.id);

    await Promise.all([
      page.waitForNavigation(),
      page
        .getByRole('button', { name: `Endurnýja lykil sem endar á ${secret.slice(-4)}`, exact: true })
        .click(),
    ]);
    expect(await htmlLang(page)).toBe('is');
    await expect(page.locator('.notice.ok').first().innerText()).resolves.toBe(
      'Gamli lykillinn hefur verið afturkallaður.',
    );
    const rolled = (await page.getByTestId('new-secret').innerText()).trim();
    expect(rolled).not.toBe(secret);
    expect((await api('/v1/merchant', secret)).status).toBe(401);
    expect((await api('/v1/merchant', rolled)).status).toBe(200);
    // The old key's row says when it was revoked, as Icelandic writes a moment (2. des. 2026, 17:05).
    const oldRow = page.locator('tr', { hasText: `…${secret.slice(-4)}` });
    await expect(oldRow.innerText()).resolves.toMatch(
      /afturkallaður \d{1,2}\. [a-zéáíóúýþæö]+\.? \d{4}, \d{2}:\d{2}/,
    );
    expect(
      await page.getByRole('button', { name: `Endurnýja lykil sem endar á ${rolled.slice(-4)}` }).count(),
    ).toBe(1);

    await page.goto(`${web.url}/dashboard/theme?lang=is`);
    await page.getByRole('textbox', { name: 'Aðallitur', exact: true }).fill('#0b6e4f');
    await page.getByRole('combobox', { name: 'Hnappar' }).selectOption('pill');
    await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Vista útlit' }).click()]);
    expect(await htmlLang(page)).toBe('is');
    await expect(page.locator('.notice.ok').innerText()).resolves.toBe('Útlitið er vistað fyrir prufuham.');
    await expect(page.getByTestId('theme-owner').innerText()).resolves.toBe('prufuham');
    await expect(page.locator('[data-testid=checkout-preview] .skil-amount').innerText()).resolves.toBe(
      '4.900 kr.',
    );
    expect((await api('/v1/merchant/theme/')).body).toMatchObject({
      primary_color: '#0b6e4f',
      button_roundness: 'pill',
      source: 'dashboard',
    });
    expect(errors).toEqual([]);
  } finally {
    await context.close();
  }
}, 120_000);
