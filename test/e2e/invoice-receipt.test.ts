/**
 * Issue 22, Done means 2, in headless Chromium: a buyer pays a hosted checkout; the receipt email
 * reaches the local mail catcher with the invoice PDF; the invoice PDF parses, and its text holds the
 * invoice number, the seller's kennitala and address, each line, VAT per rate and the total.
 */
import type { Browser } from 'playwright-core';
import { launchChromium } from '../helpers/browser';
import { sharedTestStack, type TestMerchant, type TestStack } from '../helpers/stack';
import { pdfText } from '../helpers/pdf-text';

let stack: TestStack;
let browser: Browser;
let m: TestMerchant;

beforeAll(async () => {
  [stack, browser] = await Promise.all([sharedTestStack(), launchChromium()]);
  m = await stack.merchant('Kaffibrennslan ehf.');
  const profile = await stack.api(m.testKey, '/v1/merchant', {
    method: 'PATCH',
    json: {
      kennitala: '5501692829',
      legal_address: { street: 'Laugavegur 1', city: 'Reykjavík', postalCode: '101', country: 'IS' },
      vat_number: '123456',
    },
  });
  expect(profile.status).toBe(200);
});
afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

const api = (p: string, json?: unknown) =>
  stack.api(m.testKey, p, json === undefined ? {} : { method: 'POST', json });

// The jest worker's mail catcher is shared with other files (decision 0200), some of which mail a
// buyer too: an address of this file's own finds this file's receipt.
const BUYER_EMAIL = `sigga-${Date.now().toString(36)}@example.is`;

test('a buyer pays a checkout, finds the receipt email, and the invoice PDF holds what an invoice must', async () => {
  const s = await api('/v1/checkout/sessions', {
    locale: 'is',
    success_url: `${stack.url}/thanks`,
    items: [
      { description: 'Kaffibaunir 1 kg', quantity: 2, unit_amount: 3490, vat_rate: 11 },
      { description: 'Kaffikvörn', quantity: 1, unit_amount: 12990, vat_rate: 24 },
    ],
  });
  expect(s.status).toBe(200);
  const context = await browser.newContext({ viewport: { width: 1000, height: 900 } });
  const page = await context.newPage();
  await page.route('**/*', (route) =>
    new URL(route.request().url()).hostname === '127.0.0.1' ? route.continue() : route.abort(),
  );
  try {
    await page.goto(s.body.url);
    await page.getByLabel(/^(Nafn|Name)/).fill('Sigríður Jónsdóttir');
    await page.getByLabel(/^(Netfang|Email)/).fill(BUYER_EMAIL);
    await page.getByLabel(/^(Card number|Kortanúmer)/).fill('4242 4242 4242 4242');
    await page.getByLabel(/^(Expiry|Gildistími)/).fill('12/34');
    await page.getByLabel(/^(Security code|Öryggisnúmer)/).fill('123');
    await Promise.all([page.waitForURL(`${stack.url}/thanks`), page.click('#pay')]);
  } finally {
    await context.close();
  }

  const done = (await api(`/v1/checkout/sessions/${s.body.id}`)).body;
  expect(done.payment_status).toBe('paid');
  const invoices = (await api('/v1/invoices')).body.data as {
    id: string;
    number: string;
    payment_intent: string;
  }[];
  const invoice = invoices.find((i) => i.payment_intent === done.payment_intent)!;
  expect(invoice).toBeDefined();

  // The receipt email, in Icelandic as the checkout was, with the invoice PDF attached.
  const mail = await stack.mail.waitFor((msg) => msg.to.includes(BUYER_EMAIL), 20_000);
  expect(mail.text).toContain(invoice.number);
  expect(mail.text).toContain('Kaffibaunir 1 kg');
  expect(mail.attachments).toEqual([
    expect.objectContaining({ filename: `${invoice.number}.pdf`, contentType: 'application/pdf' }),
  ]);

  const res = await fetch(`${stack.url}/v1/invoices/${invoice.id}/pdf`, {
    headers: { authorization: `Bearer ${m.testKey}` },
  });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^application\/pdf/);
  const text = await pdfText(Buffer.from(await res.arrayBuffer()));
  expect(text).toContain(invoice.number);
  expect(text).toContain('5501692829');
  expect(text).toContain('Laugavegur 1, 101 Reykjavík');
  expect(text).toContain('Kaffibaunir 1 kg | 2 x 3.490 kr. | VSK 11% | 6.980 kr.');
  expect(text).toContain('Kaffikvörn | 1 x 12.990 kr. | VSK 24% | 12.990 kr.');
  // VAT per rate from the lines, half up: 6980 × 11/111 = 691.7 → 692; 12990 × 24/124 = 2514.2 → 2514.
  expect(text).toContain('VSK 11%: stofn / taxable 6.288 kr., VSK / VAT 692 kr.');
  expect(text).toContain('VSK 24%: stofn / taxable 10.476 kr., VSK / VAT 2.514 kr.');
  expect(text).toContain('Samtals / Total: 19.970 kr.');
}, 120_000);
