import http from 'node:http';
import type { Browser } from 'playwright-core';
import { createMerchantUser, type TestUser } from '../helpers/accounts';
import { launchChromium, openPage, signInWithKeyboard } from '../helpers/browser';
import { startWebStack, type WebStack } from '../helpers/web-stack';
import { seriousAccessibilityFindings } from '../helpers/accessibility';
import { freePort } from '../../stack/free-port';

/**
 * The Theme screen's website scan (decision 0125) in Chromium: the merchant gives
 * its website's address; Skil fetches the page and its stylesheet (a site served here on loopback,
 * reachable only because the operator's WEBHOOK_ALLOW_PRIVATE_RANGES setting opens 127.0.0.0/8),
 * proposes colours, fonts and logo from what the site declares, previews the checkout in them, and
 * saves them with `source` naming the site. Without that setting the same address is refused.
 */

declare const document: any;
declare const getComputedStyle: (el: unknown) => any;

let web: WebStack;
let closedWeb: WebStack;
let browser: Browser;
let site: { url: string; hits: string[]; close: () => Promise<void> };

const PAGE = `<!doctype html><html><head><title>Kaffibrennslan</title>
<meta name="theme-color" content="#0b6e4f">
<link rel="icon" href="/favicon.ico" sizes="32x32">
<link rel="apple-touch-icon" sizes="180x180" href="https://static.kaffi.example/logo-180.png">
<link rel="stylesheet" href="/css/site.css">
<style>:root { --kaffi-bg: #fdf6ec; }</style>
</head><body><h1>Kaffibrennslan</h1></body></html>`;

const CSS = `@font-face { font-family: "Kaffi Sans"; src: url(/fonts/kaffi.woff2) format("woff2"); }
@font-face { font-family: 'Kaffi Display'; src: url(/fonts/display.woff2); }
:root { --brand-primary: rgb(123, 45, 38); --font-heading: "Kaffi Display", serif; }
body { font-family: "Kaffi Sans", system-ui, sans-serif; background: var(--kaffi-bg); }`;

async function startSite() {
  const port = await freePort();
  const hits: string[] = [];
  const server = http.createServer((req, res) => {
    hits.push(req.url ?? '');
    if (req.url === '/') return res.writeHead(302, { location: '/heim' }).end();
    if (req.url === '/heim') return res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
    if (req.url === '/css/site.css') return res.writeHead(200, { 'content-type': 'text/css' }).end(CSS);
    if (req.url === '/huge') {
      // Never ends: the scan must stop at its size bound, not wait for the end.
      res.writeHead(200, { 'content-type': 'text/html' });
      const chunk = `<p>${'x'.repeat(64 * 1024)}</p>`;
      const timer = setInterval(() => res.write(chunk), 1);
      res.on('close', () => clearInterval(timer));
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${port}`,
    hits,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

beforeAll(async () => {
  [web, closedWeb, browser, site] = await Promise.all([
    startWebStack({ allowPrivateRanges: ['127.0.0.0/8'] }),
    startWebStack(),
    launchChromium(),
    startSite(),
  ]);
});
afterAll(async () => {
  await browser?.close();
  await site?.close();
  await web?.stop();
  await closedWeb?.stop();
});

async function signedIn(
  stack: WebStack,
  name: string,
): Promise<{ user: TestUser; testKey: string; page: any; context: any; errors: string[] }> {
  const merchant = await stack.merchant(name);
  const user = await createMerchantUser(stack.knex, merchant.id);
  const { page, context, errors } = await openPage(browser, stack.url);
  await page.goto(`${stack.url}/dashboard/theme`);
  await signInWithKeyboard(page, user.email, user.password);
  await page.waitForURL(`${stack.url}/dashboard/theme`);
  return { user, testKey: merchant.testKey, page, context, errors };
}

test('scan a website: proposed colours, fonts and logo, previewed, saved with the site as source', async () => {
  const { page, context, testKey } = await signedIn(web, 'Kaffibrennslan ehf.');
  try {
    await page.getByLabel('Website address').fill(`${site.url}/`);
    await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Scan website' }).click()]);
    await expect(page.getByTestId('scan-result').innerText()).resolves.toContain(`${site.url}/heim`);
    // The proposal, in the form, ready to review.
    expect(await page.getByLabel('Primary colour').inputValue()).toBe('#7b2d26');
    expect(await page.getByLabel('Background colour').inputValue()).toBe('#fdf6ec');
    expect(await page.getByLabel('Font', { exact: true }).inputValue()).toBe('Kaffi Sans');
    expect(await page.getByLabel('Heading font').inputValue()).toBe('Kaffi Display');
    expect(await page.getByLabel('Logo URL').inputValue()).toBe('https://static.kaffi.example/logo-180.png');
    // The checkout preview already wears it.
    const seen = await page.evaluate(() => ({
      button: getComputedStyle(document.querySelector('[data-testid=checkout-preview] .skil-pay'))
        .backgroundColor,
      background: getComputedStyle(document.querySelector('[data-testid=checkout-preview]')).backgroundColor,
      logo: document.querySelector('[data-testid=checkout-preview] img')?.getAttribute('src'),
    }));
    expect(seen).toEqual({
      button: 'rgb(123, 45, 38)',
      background: 'rgb(253, 246, 236)',
      logo: 'https://static.kaffi.example/logo-180.png',
    });
    expect(await seriousAccessibilityFindings(page)).toEqual([]);
    // Nothing is saved until the merchant saves.
    const before = await fetch(`${web.url}/v1/merchant/theme/`, {
      headers: { authorization: `Bearer ${testKey}` },
    });
    expect(((await before.json()) as { primary_color: unknown }).primary_color).toBeNull();

    await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Save theme' }).click()]);
    await expect(page.locator('.notice.ok').innerText()).resolves.toContain('Theme saved');
  } finally {
    await context.close();
  }
  const theme: any = await (
    await fetch(`${web.url}/v1/merchant/theme/`, { headers: { authorization: `Bearer ${testKey}` } })
  ).json();
  expect(theme).toMatchObject({
    primary_color: '#7b2d26',
    background_color: '#fdf6ec',
    font_family: 'Kaffi Sans',
    heading_font_family: 'Kaffi Display',
    logo_url: 'https://static.kaffi.example/logo-180.png',
    source: `website scan: ${site.url}/heim`,
  });
  expect(site.hits).toEqual(expect.arrayContaining(['/', '/heim', '/css/site.css']));
});

test('a site the address rule refuses, or one without end, is reported on the page and nothing changes', async () => {
  const { page, context, testKey } = await signedIn(closedWeb, 'Lokað ehf.');
  try {
    const hitsBefore = site.hits.length;
    await page.getByLabel('Website address').fill(`${site.url}/`);
    await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Scan website' }).click()]);
    await expect(page.getByRole('alert').innerText()).resolves.toMatch(
      /could not be scanned: .*127\.0\.0\.1 is a loopback address/,
    );
    expect(site.hits.length).toBe(hitsBefore);
  } finally {
    await context.close();
  }
  const other = await signedIn(web, 'Endalaust ehf.');
  try {
    const started = Date.now();
    await other.page.getByLabel('Website address').fill(`${site.url}/huge`);
    await Promise.all([
      other.page.waitForNavigation(),
      other.page.getByRole('button', { name: 'Scan website' }).click(),
    ]);
    // Read up to the size bound and proposed from what was there (nothing), quickly.
    expect(Date.now() - started).toBeLessThan(8000);
    await expect(other.page.getByTestId('scan-result').innerText()).resolves.toContain('nothing to propose');
  } finally {
    await other.context.close();
  }
  const theme: any = await (
    await fetch(`${closedWeb.url}/v1/merchant/theme/`, { headers: { authorization: `Bearer ${testKey}` } })
  ).json();
  expect(theme.source).toBeNull();
});

test('the preview follows the form as the merchant types, before anything is saved', async () => {
  const { page, context, testKey, errors } = await signedIn(web, 'Forsýn ehf.');
  try {
    const look = () =>
      page.evaluate(() => {
        const preview = document.querySelector('[data-testid=checkout-preview]');
        return {
          live: preview.getAttribute('data-live'),
          button: getComputedStyle(preview.querySelector('.skil-pay')).backgroundColor,
          radius: getComputedStyle(preview.querySelector('.skil-pay')).borderTopLeftRadius,
          background: getComputedStyle(preview).backgroundColor,
          heading: getComputedStyle(preview.querySelector('.skil-merchant')).fontFamily,
          logo: preview.querySelector('img')?.getAttribute('src') ?? null,
        };
      });
    expect(await look()).toMatchObject({ live: '1', button: 'rgb(31, 79, 209)', logo: null });
    await page.getByLabel('Primary colour').fill('');
    await page.getByLabel('Primary colour').pressSequentially('#0b6e4f');
    await page.getByLabel('Background colour').fill('#fdf6ec');
    await page.getByLabel('Heading font').fill('Kaffi Display');
    await page.getByLabel('Buttons').selectOption('pill');
    await page.getByLabel('Logo URL').fill('https://static.kaffi.example/logo.png');
    expect(await look()).toEqual({
      live: '1',
      button: 'rgb(11, 110, 79)',
      radius: '999px',
      background: 'rgb(253, 246, 236)',
      heading: '"Kaffi Display", system-ui, sans-serif',
      logo: 'https://static.kaffi.example/logo.png',
    });
    // A value the theme's rules refuse shows the default, as the checkout would.
    await page.getByLabel('Primary colour').fill('red; background: url(x)');
    expect((await look()).button).toBe('rgb(31, 79, 209)');
    await page.getByLabel('Logo URL').fill('http://insecure.example/logo.png');
    expect((await look()).logo).toBeNull();
    // Typing saved nothing; the page ran under its CSP with no error.
    const theme: any = await (
      await fetch(`${web.url}/v1/merchant/theme/`, { headers: { authorization: `Bearer ${testKey}` } })
    ).json();
    expect(theme.primary_color).toBeNull();
    expect(errors).toEqual([]);
    expect(await seriousAccessibilityFindings(page)).toEqual([]);
  } finally {
    await context.close();
  }
});
