import type { Browser, Page } from 'playwright-core';
import { createMerchantUser, createOperator, type TestUser } from '../helpers/accounts';
import { launchChromium, openPage, type TestPage } from '../helpers/browser';
import { startWebStack, type WebStack } from '../helpers/web-stack';

/**
 * The dashboard's language belongs to the user, not the browser: a switch made on one page is
 * stored on the user, so signing in from a fresh browser (no cookies, an English Accept-Language)
 * shows the pages in it; `?lang=` switches back and is stored the same way. The operator's pages
 * and the device page speak Icelandic with the same fields and actions as in English, as do the
 * pages every area shares (no such page, not for this kind of account).
 */

// Browser globals for the callbacks that run inside page.evaluate (the project compiles without lib "dom").
declare const document: { documentElement: { lang: string } };

let web: WebStack;
let browser: Browser;
let merchant: { id: string; testKey: string };
let owner: TestUser;
let operator: TestUser;
const opened: TestPage[] = [];

beforeAll(async () => {
  [web, browser] = await Promise.all([startWebStack(), launchChromium()]);
  merchant = await web.merchant('Tungumál ehf.');
  owner = await createMerchantUser(web.knex, merchant.id);
  operator = await createOperator(web.knex);
});
afterAll(async () => {
  for (const t of opened) await t.context.close();
  await browser?.close();
  await web?.stop();
});

/** A new browser context: no cookies, Chromium's own English Accept-Language. */
async function freshBrowser(): Promise<TestPage> {
  const tab = await openPage(browser, web.url);
  opened.push(tab);
  return tab;
}

const langOf = (page: Page) => page.evaluate(() => document.documentElement.lang);
const heading = (page: Page) => page.locator('main h1').innerText();

/** Signs in on the sign-in page as it shows itself to this browser (English without a cookie). */
async function signIn(page: Page, u: TestUser): Promise<void> {
  await page.goto(`${web.url}/dashboard/sign-in`);
  await expect(langOf(page)).resolves.toBe('en');
  await page.getByLabel('Email').fill(u.email);
  await page.getByLabel('Password').fill(u.password);
  await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Sign in' }).click()]);
}

async function signOut(page: Page, button: string): Promise<void> {
  await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: button }).click()]);
  expect(new URL(page.url()).pathname).toBe('/dashboard/sign-in');
}

const storedLocale = async (u: TestUser) =>
  (await web.knex('users').where({ id: u.id }).first<{ locale: string | null } | undefined>('locale'))
    ?.locale;

test('a merchant user switches to Icelandic once; a new browser signed in shows Icelandic; ?lang=en switches back and is stored', async () => {
  const first = await freshBrowser();
  await signIn(first.page, owner);
  expect(new URL(first.page.url()).pathname).toBe('/dashboard/home');
  await expect(langOf(first.page)).resolves.toBe('en');
  await first.page.goto(`${web.url}/dashboard/payments`);
  // The header's language link, as a user would switch.
  await Promise.all([
    first.page.waitForURL(/lang=is/),
    first.page.getByRole('link', { name: 'Íslenska' }).click(),
  ]);
  await expect(langOf(first.page)).resolves.toBe('is');
  await expect(heading(first.page)).resolves.toBe('Greiðslur');
  await signOut(first.page, 'Skrá út');
  await first.context.close();
  await expect(storedLocale(owner)).resolves.toBe('is');

  // Another browser, no cookies: the sign-in page is English, the dashboard after it Icelandic.
  const second = await freshBrowser();
  await signIn(second.page, owner);
  expect(new URL(second.page.url()).pathname).toBe('/dashboard/home');
  await expect(langOf(second.page)).resolves.toBe('is');
  await expect(heading(second.page)).resolves.toBe('Yfirlit');
  await second.page.goto(`${web.url}/dashboard/customers`);
  await expect(langOf(second.page)).resolves.toBe('is');
  await expect(heading(second.page)).resolves.toBe('Viðskiptavinir');
  // The page after signing out speaks the user's language too.
  await signOut(second.page, 'Skrá út');
  await expect(langOf(second.page)).resolves.toBe('is');
  await second.context.close();

  // `?lang=en` switches back, on this browser and, stored, on the next one.
  const third = await freshBrowser();
  await signIn(third.page, owner);
  await expect(langOf(third.page)).resolves.toBe('is');
  await third.page.goto(`${web.url}/dashboard/customers?lang=en`);
  await expect(langOf(third.page)).resolves.toBe('en');
  await expect(heading(third.page)).resolves.toBe('Customers');
  await third.page.goto(`${web.url}/dashboard/products`);
  await expect(langOf(third.page)).resolves.toBe('en');
  await signOut(third.page, 'Sign out');
  await expect(storedLocale(owner)).resolves.toBe('en');
  const fourth = await freshBrowser();
  await signIn(fourth.page, owner);
  await expect(langOf(fourth.page)).resolves.toBe('en');
  await expect(heading(fourth.page)).resolves.toBe('Home');

  // `/dashboard` keeps the language asked for through its redirect.
  await fourth.page.goto(`${web.url}/dashboard?lang=is`);
  expect(new URL(fourth.page.url()).pathname).toBe('/dashboard/home');
  await expect(langOf(fourth.page)).resolves.toBe('is');
  await fourth.page.goto(`${web.url}/dashboard?lang=en`);
  await expect(langOf(fourth.page)).resolves.toBe('en');
  expect([...first.errors, ...second.errors, ...third.errors, ...fourth.errors]).toEqual([]);
}, 90_000);

test('an operator switches to Icelandic on the operator page; a new browser shows the operator and finance pages in Icelandic; the finance switch back to English is stored', async () => {
  const first = await freshBrowser();
  await signIn(first.page, operator);
  expect(new URL(first.page.url()).pathname).toBe('/dashboard/operator');
  await expect(langOf(first.page)).resolves.toBe('en');
  await expect(heading(first.page)).resolves.toBe('Applications');
  await Promise.all([
    first.page.waitForURL(/lang=is/),
    first.page.getByRole('link', { name: 'Íslenska' }).click(),
  ]);
  await expect(langOf(first.page)).resolves.toBe('is');
  await expect(heading(first.page)).resolves.toBe('Umsóknir');
  await signOut(first.page, 'Skrá út');
  await first.context.close();

  const second = await freshBrowser();
  await signIn(second.page, operator);
  expect(new URL(second.page.url()).pathname).toBe('/dashboard/operator');
  await expect(langOf(second.page)).resolves.toBe('is');
  await expect(heading(second.page)).resolves.toBe('Umsóknir');
  // The finance pages follow the same rule: Icelandic without asking.
  await Promise.all([
    second.page.waitForNavigation(),
    second.page.getByRole('link', { name: 'Fjármál' }).click(),
  ]);
  expect(new URL(second.page.url()).pathname).toBe('/dashboard/finance');
  await expect(langOf(second.page)).resolves.toBe('is');
  await expect(heading(second.page)).resolves.toBe('Uppgjör eftir dögum');
  // Their own language links store the choice on the operator as well.
  await Promise.all([
    second.page.waitForURL(/lang=en/),
    second.page.getByRole('link', { name: 'English' }).click(),
  ]);
  await expect(langOf(second.page)).resolves.toBe('en');
  await signOut(second.page, 'Sign out');
  await expect(storedLocale(operator)).resolves.toBe('en');

  const third = await freshBrowser();
  await signIn(third.page, operator);
  await expect(langOf(third.page)).resolves.toBe('en');
  await expect(heading(third.page)).resolves.toBe('Applications');
  await third.page.goto(`${web.url}/dashboard/finance?env=test`);
  await expect(langOf(third.page)).resolves.toBe('en');
  // `/dashboard?lang=is` lands on the operator's page in Icelandic.
  await third.page.goto(`${web.url}/dashboard?lang=is`);
  expect(new URL(third.page.url()).pathname).toBe('/dashboard/operator');
  await expect(langOf(third.page)).resolves.toBe('is');
  await third.page.goto(`${web.url}/dashboard/finance?env=test`);
  await expect(langOf(third.page)).resolves.toBe('is');
  await third.page.goto(`${web.url}/dashboard/operator?lang=en`);
  expect([...first.errors, ...second.errors, ...third.errors]).toEqual([]);
}, 90_000);

test('the operator pages in Icelandic: headings, labels, navigation and actions; the same action works', async () => {
  const tab = await freshBrowser();
  await signIn(tab.page, operator);
  const { page } = tab;
  await page.goto(`${web.url}/dashboard/operator?status=unsubmitted&lang=is`);
  await expect(langOf(page)).resolves.toBe('is');
  await expect(heading(page)).resolves.toBe('Umsóknir');
  await expect(page.getByRole('navigation', { name: 'Sía' }).innerText()).resolves.toMatch(/ósend/);
  await expect(page.locator('caption').innerText()).resolves.toBe('Umsóknir: ósend');
  await expect(page.locator('thead th').allInnerTexts()).resolves.toEqual([
    'Söluaðili',
    'Kennitala',
    'Innsend',
  ]);
  // The header: the operator's sections, the menu words, sign-out and the switch back, in Icelandic.
  const header = page.locator('header');
  // The group's label is set in capitals by the stylesheet, hence the case-blind match.
  await expect(header.getByRole('navigation', { name: 'Stjórnborð' }).innerText()).resolves.toMatch(
    /Umsjón[\s\S]*Umsóknir[\s\S]*Fjármál/i,
  );
  await expect(header.locator('.menu-toggle').innerText()).resolves.toBe('Valmynd');
  await expect(header.getByRole('button', { name: 'Skrá út' }).count()).resolves.toBe(1);
  await expect(header.getByRole('link', { name: 'English' }).getAttribute('href')).resolves.toBe(
    '/dashboard/operator?status=unsubmitted&lang=en',
  );

  await page.goto(`${web.url}/dashboard/operator/merchants/${merchant.id}?lang=is`);
  await expect(langOf(page)).resolves.toBe('is');
  await expect(heading(page)).resolves.toBe('Tungumál ehf.');
  await expect(page.locator('main dt').allInnerTexts()).resolves.toEqual([
    'Nafn',
    'Tegund',
    'Kennitala',
    'Sími',
    'Vefsíða',
    'Hvað er selt',
    'Bankareikningur',
    'Lögheimili',
    'Umsókn',
    'Virkt í raunumhverfi',
    'Afgreiðslukerfi',
  ]);
  await expect(page.getByRole('heading', { level: 2 }).innerText()).resolves.toBe('Aðgerðir');
  // The same form, worded in Icelandic: it switches the till on as the English one does.
  await Promise.all([
    page.waitForNavigation(),
    page.getByRole('button', { name: 'Kveikja á afgreiðslukerfi' }).click(),
  ]);
  await expect(langOf(page)).resolves.toBe('is');
  await expect(page.locator('.notice.ok').innerText()).resolves.toMatch(/Lokið\./);
  await expect(page.getByRole('button', { name: 'Slökkva á afgreiðslukerfi' }).count()).resolves.toBe(1);
  const live = await fetch(`${web.url}/v1/merchant`, {
    headers: { authorization: `Bearer ${merchant.testKey}` },
  });
  expect(((await live.json()) as { features: { pos: boolean } }).features.pos).toBe(true);

  // An operator opening the device page is told no, in Icelandic.
  const refused = await page.goto(`${web.url}/device?lang=is`);
  expect(refused!.status()).toBe(403);
  await expect(heading(page)).resolves.toBe('Heimila tæki');
  await expect(page.locator('main p').innerText()).resolves.toMatch(/aðgangi söluaðila/);
  await page.goto(`${web.url}/dashboard/operator?lang=en`);
  // Only the refused device page's own 403, logged by the browser as a failed load.
  expect(tab.errors.filter((e) => !/status of 403/.test(e))).toEqual([]);
}, 60_000);

test('the device page in Icelandic: the code form, the request and approving it', async () => {
  const started = await fetch(`${web.url}/v1/device/authorize`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'skil-cli á fartölvu' }),
  });
  expect(started.status).toBe(200);
  const { user_code } = (await started.json()) as { user_code: string };
  const tab = await freshBrowser();
  await signIn(tab.page, owner);
  const { page } = tab;

  await page.goto(`${web.url}/device?lang=is`);
  await expect(langOf(page)).resolves.toBe('is');
  await expect(heading(page)).resolves.toBe('Heimila tæki');
  await page.getByLabel('Kóðinn sem útstöðin eða forritið sýnir').fill(user_code);
  await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Áfram' }).click()]);
  await expect(langOf(page)).resolves.toBe('is');
  await expect(page.locator('main p').first().innerText()).resolves.toBe(
    'skil-cli á fartölvu biður um API-lykil í prufuham fyrir Tungumál ehf..',
  );
  await expect(page.getByTestId('user-code').innerText()).resolves.toBe(user_code);
  await expect(page.getByRole('button', { name: 'Hafna' }).count()).resolves.toBe(1);
  await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Samþykkja' }).click()]);
  await expect(langOf(page)).resolves.toBe('is');
  await expect(page.getByTestId('device-result').innerText()).resolves.toMatch(
    /^Samþykkt\. Útstöðin fær prufulykil/,
  );
  // A code that names nothing, in Icelandic too.
  const unknown = await page.goto(`${web.url}/device?user_code=BBBB-CCCC`);
  expect(unknown!.status()).toBe(404);
  await expect(page.locator('.notice').innerText()).resolves.toMatch(/Engin beiðni í bið/);
  // The pages every area shares speak it as well: no such page, and a page for operators only.
  const missing = await page.goto(`${web.url}/dashboard/no-such-page`);
  expect(missing!.status()).toBe(404);
  await expect(langOf(page)).resolves.toBe('is');
  await expect(heading(page)).resolves.toBe('Síða fannst ekki');
  const operatorsOnly = await page.goto(`${web.url}/dashboard/operator`);
  expect(operatorsOnly!.status()).toBe(403);
  await expect(heading(page)).resolves.toBe('Ekki í boði');
  await expect(page.locator('main p').innerText()).resolves.toBe(
    `Þessi síða er fyrir aðganga umsjónaraðila. Innskráð netfang: ${owner.email}.`,
  );
  await page.goto(`${web.url}/dashboard/home?lang=en`);
  expect(tab.errors.filter((e) => !/status of 40[34]/.test(e))).toEqual([]);
}, 60_000);
