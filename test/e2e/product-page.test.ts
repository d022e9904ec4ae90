import type { Browser } from 'playwright-core';
import jsQR from 'jsqr';
import { PNG } from 'pngjs';
import { launchChromium, openPage } from '../helpers/browser';
import { seriousAccessibilityFindings } from '../helpers/accessibility';
import { setPos, setUpTill } from '../helpers/pos';
import { sharedTestStack, type TestMerchant, type TestStack } from '../helpers/stack';

/**
 * Issue 19, product pages (decision 0161): the till shows a product's QR code; a buyer's phone
 * (375 px) reads it, opens the hosted product page, picks a variant and a quantity, pays with a test
 * card on the hosted checkout; the API shows the payment at the variant's price times the quantity.
 * A product made inactive has no page (404), and neither has any product while the POS is off.
 */

declare const document: { scrollingElement: { scrollWidth: number } };

let stack: TestStack;
let browser: Browser;
let m: TestMerchant;
let shirtId: string;
let till: Awaited<ReturnType<typeof setUpTill>>;

const SIZES = { S: 3_490, L: 3_990 };
const QUANTITY = 2;

beforeAll(async () => {
  [stack, browser] = await Promise.all([sharedTestStack(), launchChromium()]);
  m = await stack.merchant('Bolabúðin ehf.');
  await setPos(stack, m.id, true);
  till = await setUpTill(stack, m.testKey);
  const shirt = await till.call('/v1/products', { name: 'Bolur', vat_rate: 24 });
  shirtId = shirt.id;
  for (const [name, unit_amount] of Object.entries(SIZES))
    await till.call(`/v1/products/${shirtId}/variants`, { name, unit_amount });
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

test('till QR → product page on a phone → variant ×2 paid with a test card → the payment; inactive is 404', async () => {
  // The till: paired (its device cookie), the manager signs in by PIN and opens the product's QR.
  const tablet = await openPage(browser, stack.url);
  await tablet.context.addCookies([{ name: 'skil_pos_device', value: till.credential, url: stack.url }]);
  await tablet.page.goto(`${stack.url}/pos/sign-in?lang=en`);
  await tablet.page.getByLabel('Guðrún').check();
  await tablet.page.getByLabel('PIN').fill(till.managerPin);
  await Promise.all([
    tablet.page.waitForURL(/\/pos\/shift$/),
    tablet.page.getByRole('button', { name: 'Sign in' }).click(),
  ]);
  await tablet.page.getByRole('link', { name: 'Product pages' }).click();
  await Promise.all([
    tablet.page.waitForURL(/\/pos\/products\/prod_/),
    tablet.page.getByRole('link', { name: /^Bolur/ }).click(),
  ]);
  expect(await seriousAccessibilityFindings(tablet.page)).toEqual([]);
  const shown = (await tablet.page.getByTestId('product-page-link').innerText()).trim();
  expect(shown).toBe(`${stack.url}/p/${shirtId}`);

  // The QR code, as a camera would see it: the rendered SVG, rasterised and decoded.
  const qr = tablet.page.getByRole('img', { name: /QR code of the product page of Bolur/ });
  const png = PNG.sync.read(await qr.screenshot());
  const decoded = jsQR(new Uint8ClampedArray(png.data), png.width, png.height);
  expect(decoded?.data).toBe(shown);
  expect(tablet.errors).toEqual([]);
  await tablet.context.close();

  // The buyer's phone opens what the QR says.
  const phone = await openPage(browser, stack.url);
  await phone.page.setViewportSize({ width: 375, height: 740 });
  await phone.page.goto(`${decoded!.data}?lang=en`);
  await expect(phone.page.getByRole('heading', { level: 1 }).innerText()).resolves.toBe('Bolur');
  expect(await phone.page.evaluate(() => document.scrollingElement.scrollWidth)).toBeLessThanOrEqual(375);
  expect(await seriousAccessibilityFindings(phone.page)).toEqual([]);
  await phone.page.getByRole('radio', { name: /^L ISK/ }).check();
  await phone.page.getByLabel('Quantity').fill(String(QUANTITY));
  await Promise.all([
    phone.page.waitForURL(/\/checkout\/cs_/),
    phone.page.getByRole('button', { name: 'Pay' }).click(),
  ]);
  const sessionId = new URL(phone.page.url()).pathname.split('/')[2]!;
  await phone.page.getByLabel('Name *').fill('Sigríður Jónsdóttir');
  await phone.page.getByLabel('Email *').fill('sigga@example.is');
  await phone.page.getByLabel(/^Card number/).fill('4242 4242 4242 4242');
  await phone.page.getByLabel(/^Expiry/).fill('12/34');
  await phone.page.getByLabel(/^Security code/).fill('123');
  await Promise.all([
    phone.page.waitForResponse(
      (r) => r.url().includes(`/checkout/${sessionId}`) && r.request().method() === 'POST',
    ),
    phone.page.click('#pay'),
  ]);
  await expect(phone.page.getByTestId('status').getAttribute('data-payment-status')).resolves.toBe('paid');
  expect(phone.errors).toEqual([]);
  await phone.context.close();

  // The API: the session of the product page, its line, and the captured payment.
  const session = await stack.api(m.testKey, `/v1/checkout/sessions/${sessionId}`);
  expect(session.status).toBe(200);
  expect(session.body).toMatchObject({ status: 'complete', amount: SIZES.L * QUANTITY, livemode: false });
  const intent = await stack.api(m.testKey, `/v1/payment-intents/${session.body.payment_intent}`);
  expect(intent.status).toBe(200);
  expect(intent.body).toMatchObject({ amount: SIZES.L * QUANTITY, status: 'succeeded' });

  // No page for an inactive product, an unknown one, or any while the POS is off.
  const page = (id: string) => fetch(`${stack.url}/p/${id}`).then((r) => r.status);
  await expect(page(shirtId)).resolves.toBe(200);
  await setPos(stack, m.id, false);
  await expect(page(shirtId)).resolves.toBe(404);
  await setPos(stack, m.id, true);
  const off = await stack.api(m.testKey, `/v1/products/${shirtId}`, {
    method: 'PATCH',
    json: { active: false },
  });
  expect(off.status).toBe(200);
  await expect(page(shirtId)).resolves.toBe(404);
  await expect(page('prod_doesnotexist000000000000')).resolves.toBe(404);
}, 60_000);
