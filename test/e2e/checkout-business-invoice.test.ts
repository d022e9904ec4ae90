import type { Browser } from 'playwright-core';
import { launchChromium, openPage } from '../helpers/browser';
import { seriousAccessibilityFindings } from '../helpers/accessibility';
import { sharedTestStack, type TestMerchant, type TestStack } from '../helpers/stack';
import { until } from '../helpers/until';
import { fatalIds, validateEInvoices } from '../helpers/official-einvoice-validation';

/**
 * "Invoice to a company" on the hosted checkout (decision 0212), in headless Chromium: the box and
 * its fields in Icelandic and English at 390 px and 1280 px (hidden until ticked, no overflow, no
 * accessibility finding); a buyer at a phone's width who ticks it, mistypes the kennitala and leaves
 * the street empty is told at each field and charged nothing, then pays; the company becomes the
 * session's customer, marked business, and its invoice passes the official EN 16931 and Peppol/
 * TS-236 artefacts. Unticked, the buyer is a consumer: the invoice has no UBL (decision 0210).
 */

declare const document: any;

const COMPANY = '4101692659';

let stack: TestStack;
let browser: Browser;
let m: TestMerchant;

beforeAll(async () => {
  [stack, browser] = await Promise.all([sharedTestStack(), launchChromium()]);
  m = await stack.merchant('Kaffibrennslan ehf.');
  const profile = await stack.api(m.testKey, '/v1/merchant', {
    method: 'PATCH',
    json: {
      merchant_type: 'company',
      kennitala: '5501692829',
      legal_address: { street: 'Laugavegur 1', city: 'Reykjavík', postalCode: '101', country: 'IS' },
      vat_number: '123456',
      default_vat_rate: 24,
    },
  });
  expect(profile.status).toBe(200);
});
afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

async function session(json: Record<string, unknown>) {
  const r = await stack.api(m.testKey, '/v1/checkout/sessions', {
    method: 'POST',
    json: {
      currency: 'ISK',
      items: [{ description: 'Kvörn', quantity: 1, unit_amount: 12_990, vat_rate: 24 }],
      ...json,
    },
  });
  expect(r.status).toBe(200);
  return r.body as { id: string; url: string; business_invoice: { enabled: boolean } };
}

test('the box and its fields: hidden until ticked, 390 and 1280 px, is and en, no overflow, no finding', async () => {
  const seen: Record<string, unknown> = {};
  for (const locale of ['is', 'en'] as const) {
    const s = await session({ locale, business_invoice: { enabled: true } });
    expect(s.business_invoice).toEqual({ enabled: true });
    for (const width of [390, 1280]) {
      const { page, context } = await openPage(browser, stack.url);
      try {
        await page.setViewportSize({ width, height: 900 });
        await page.goto(s.url);
        const hiddenBefore = !(await page.locator('#business-kennitala').isVisible());
        await page.locator('label[for="business-invoice"]').click();
        seen[`${locale}@${width}`] = {
          box: await page.locator('label[for="business-invoice"]').innerText(),
          hiddenBefore,
          shownAfter: await page.locator('#business-kennitala').isVisible(),
          labels: await page.locator('.business-fields label').allInnerTexts(),
          fits: (await page.evaluate(() => document.documentElement.scrollWidth as number)) <= width,
        };
        expect(await seriousAccessibilityFindings(page)).toEqual([]);
      } finally {
        await context.close();
      }
    }
  }
  const is = {
    box: 'Reikningur á fyrirtæki',
    hiddenBefore: true,
    shownAfter: true,
    labels: ['Kennitala fyrirtækis', 'Nafn fyrirtækis', 'Heimilisfang', 'Póstnúmer', 'Staður'],
    fits: true,
  };
  const en = {
    box: 'Invoice to a company',
    hiddenBefore: true,
    shownAfter: true,
    labels: ['Company kennitala', 'Company name', 'Street address', 'Postcode', 'Town'],
    fits: true,
  };
  expect(seen).toEqual({ 'is@390': is, 'is@1280': is, 'en@390': en, 'en@1280': en });
});

test('a buyer at a phone invoices a company: told at each wrong field (a kennitala with no such month, no street), then paid; the invoice is a valid business e-invoice', async () => {
  const s = await session({ locale: 'is', business_invoice: { enabled: true } });
  const { page, context } = await openPage(browser, stack.url);
  try {
    await page.setViewportSize({ width: 390, height: 900 });
    await page.goto(s.url);
    await page.getByLabel('Nafn *', { exact: true }).fill('Sigríður Jónsdóttir');
    await page.getByLabel('Netfang *', { exact: true }).fill('sigga@bokhald.example.is');
    await page.locator('label[for="business-invoice"]').click();
    await page.getByLabel('Kennitala fyrirtækis').fill('4113692659');
    await page.getByLabel('Nafn fyrirtækis').fill('Bókhaldsstofan ehf.');
    await page.getByLabel('Póstnúmer').fill('101');
    await page.getByLabel('Staður').fill('Reykjavík');
    await page.getByLabel(/^Kortanúmer/).fill('4242424242424242');
    await page.getByLabel(/^Gildistími/).fill('12/34');
    await page.getByLabel(/^Öryggisnúmer/).fill('123');
    await Promise.all([page.waitForEvent('framenavigated'), page.click('#pay')]);
    await page.waitForLoadState('load');
    // Refused at the fields, the box still ticked and what was typed kept; nothing charged.
    expect(await page.locator('#business-kennitala').getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('#business-line1').getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('#business-kennitala-err').innerText()).toBe('Kennitalan er ekki gild');
    expect(await page.locator('#business-line1-err').innerText()).toBe('Þarf að fylla út');
    expect(await page.locator('#business-invoice').isChecked()).toBe(true);
    expect(await page.getByLabel('Nafn fyrirtækis').inputValue()).toBe('Bókhaldsstofan ehf.');
    const open = (await stack.api(m.testKey, `/v1/checkout/sessions/${s.id}`)).body;
    expect(open).toMatchObject({ status: 'open', customer: null });

    await page.getByLabel('Kennitala fyrirtækis').fill(COMPANY);
    await page.getByLabel('Heimilisfang').fill('Hverfisgata 4');
    await page.getByLabel(/^Kortanúmer/).fill('4242424242424242');
    await page.getByLabel(/^Gildistími/).fill('12/34');
    await page.getByLabel(/^Öryggisnúmer/).fill('123');
    await Promise.all([page.waitForEvent('framenavigated'), page.click('#pay')]);
    await page.waitForLoadState('load');
  } finally {
    await context.close();
  }
  const done = await until(
    () => stack.api(m.testKey, `/v1/checkout/sessions/${s.id}`),
    (r) => r.body.status === 'complete',
  );
  expect(done.body.payment_status).toBe('paid');
  const customer = (await stack.api(m.testKey, `/v1/customers/${done.body.customer}`)).body;
  expect(customer).toMatchObject({
    name: 'Bókhaldsstofan ehf.',
    email: 'sigga@bokhald.example.is',
    kennitala: COMPANY,
    address: { line1: 'Hverfisgata 4', postal_code: '101', city: 'Reykjavík', country: 'IS' },
    business: true,
    einvoice: true,
  });
  const invoice = (
    await until(
      () => stack.api(m.testKey, `/v1/invoices?customer=${customer.id}`),
      (r) => (r.body.data as unknown[]).length === 1,
    )
  ).body.data[0] as { id: string };
  const ubl = await fetch(`${stack.url}/v1/invoices/${invoice.id}/ubl`, {
    headers: { authorization: `Bearer ${m.testKey}` },
  });
  expect(ubl.status).toBe(200);
  const xml = await ubl.text();
  expect(xml).toContain(`<cbc:EndpointID schemeID="0196">${COMPANY}</cbc:EndpointID>`);
  const [report] = await validateEInvoices([xml]);
  expect({ en16931: fatalIds(report!.en16931), peppol: fatalIds(report!.peppol) }).toEqual({
    en16931: [],
    peppol: [],
  });
});

test('unticked, the buyer is a consumer; a payment link carries the offer to its sessions', async () => {
  const s = await session({ business_invoice: { enabled: true } });
  const paid = await fetch(s.url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      action: 'pay',
      f_name: 'Guðrún',
      f_email: 'gudrun@example.is',
      card_number: '4242424242424242',
      card_exp: '12/34',
      card_cvc: '123',
    }).toString(),
    redirect: 'manual',
  });
  expect(paid.status).toBeLessThan(400);
  const done = await until(
    () => stack.api(m.testKey, `/v1/checkout/sessions/${s.id}`),
    (r) => r.body.status === 'complete',
  );
  expect(done.body.customer).toBeNull();
  const invoice = (
    await until(
      () => stack.api(m.testKey, `/v1/invoices?limit=100`),
      (r) =>
        (r.body.data as { payment_intent: string }[]).some(
          (i) => i.payment_intent === done.body.payment_intent,
        ),
    )
  ).body.data.find((i: { payment_intent: string }) => i.payment_intent === done.body.payment_intent) as {
    id: string;
  };
  const ubl = await fetch(`${stack.url}/v1/invoices/${invoice.id}/ubl`, {
    headers: { authorization: `Bearer ${m.testKey}` },
  });
  expect(ubl.status).toBe(422);

  const link = await stack.api(m.testKey, '/v1/payment-links', {
    method: 'POST',
    json: { amount: 5_000, currency: 'ISK', business_invoice: { enabled: true } },
  });
  expect(link.status).toBe(200);
  expect(link.body.business_invoice).toEqual({ enabled: true });
  const opened = await fetch(link.body.url as string, { redirect: 'manual' });
  const sessionId = /\/checkout\/(cs_[0-9A-Za-z]+)/.exec(opened.headers.get('location') ?? '')![1]!;
  expect((await stack.api(m.testKey, `/v1/checkout/sessions/${sessionId}`)).body.business_invoice).toEqual({
    enabled: true,
  });
  // A session for a known customer invoices that customer: no box.
  const known = await stack.api(m.testKey, '/v1/customers', { method: 'POST', json: { name: 'Þekktur' } });
  expect(
    (await session({ customer: known.body.id, business_invoice: { enabled: true } })).business_invoice,
  ).toEqual({ enabled: false });
});
