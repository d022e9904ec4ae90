/**
 * Invoice delivery (decisions 0215–0219), through the real paths: a customer's delivery choice set
 * over the API, a checkout paid by card issues the invoice, its delivery workflow sends the UBL to
 * the simulated access point, which validates it with the official artefacts (Saxon) and delivers
 * or refuses it; the outcome shows on the invoice in the API, as an event, and on the payment's
 * dashboard page.
 *
 * (a) A business buyer's invoice is delivered: status `delivered`, `invoice.delivery_succeeded`.
 * (b) Two the access point refuses, never delivered: a receiver it does not know (a person's
 *     kennitala is in no Peppol directory) and a document that breaks the Icelandic rules (a buyer
 *     without address: IS-R-005). Each shows `failed` with the rule ids in the API, in its
 *     `invoice.delivery_failed` event and on the dashboard, in English and Icelandic, at 390 and
 *     1280 px with no axe finding.
 * (c) A customer who chose e-mail gets the PDF invoice at its address; the delivery is `delivered`.
 * (d) Sending again is harmless: six deliveries of one invoice at once make one transmission, one
 *     event and one outcome.
 * (e) A credit note goes as its invoice did (decision 0237): a partial refund's credit note for a
 *     Peppol customer reaches the simulated access point and is delivered; one it refuses is never
 *     delivered and shows failed with the reason in the API, its event and the invoice's dashboard page.
 * (f) The dashboard's customer form (decision 0236) makes a consumer a business buyer, its faults
 *     shown beside their fields in both languages at 390 and 1280 px; the customer's next invoice
 *     is an e-invoice both official artefacts accept, and the change is in the audit log.
 */
import type { Browser } from 'playwright-core';
import { sharedTestStack, type TestMerchant, type TestStack } from '../helpers/stack';
import { until } from '../helpers/until';
import { createMerchantUser } from '../helpers/accounts';
import { launchChromium, openPage } from '../helpers/browser';
import { seriousAccessibilityFindings } from '../helpers/accessibility';
import { fatalIds, validateEInvoices } from '../helpers/official-einvoice-validation';

declare const document: { documentElement: { scrollWidth: number; clientWidth: number } };

let stack: TestStack;
let browser: Browser;
beforeAll(async () => {
  [stack, browser] = await Promise.all([sharedTestStack(), launchChromium()]);
});
afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

async function seller(): Promise<TestMerchant> {
  const m = await stack.merchant('Kaffibrennslan ehf.');
  const res = await stack.api(m.testKey, '/v1/merchant', {
    method: 'PATCH',
    json: {
      name: 'Kaffibrennslan ehf.',
      merchant_type: 'company',
      kennitala: '5501692829',
      legal_address: { street: 'Laugavegur 1', city: 'Reykjavík', postalCode: '101', country: 'IS' },
      bank_account: '0133-26-012345',
      vat_number: '123456',
      default_vat_rate: 24,
    },
  });
  expect(res.status).toBe(200);
  return m;
}

async function customer(m: TestMerchant, json: Record<string, unknown>): Promise<string> {
  const res = await stack.api(m.testKey, '/v1/customers', {
    method: 'POST',
    json: { email: 'reikningar@example.is', invoice_settings: { delivery_method: 'peppol' }, ...json },
  });
  expect(res.status).toBe(200);
  expect(res.body.invoice_settings).toEqual({ delivery_method: 'peppol' });
  return res.body.id as string;
}

/** A checkout for the customer paid by card; its invoice. */
async function buy(m: TestMerchant, customerId: string): Promise<{ id: string; payment_intent: string }> {
  const s = await stack.api(m.testKey, '/v1/checkout/sessions', {
    method: 'POST',
    json: {
      currency: 'ISK',
      success_url: 'https://shop.example/ok',
      customer: customerId,
      items: [{ description: 'Kaffi 1 kg', quantity: 2, unit_amount: 4990, vat_rate: 24 }],
    },
  });
  expect(s.status).toBe(200);
  const done = await stack.api(m.testKey, `/v1/test_helpers/checkout/sessions/${s.body.id}/complete`, {
    method: 'POST',
    json: {},
  });
  expect(done.status).toBe(200);
  const pi = done.body.payment_intent as string;
  const list = await until(
    () => stack.api(m.testKey, `/v1/invoices?customer=${customerId}`),
    (r) => (r.body.data as { payment_intent: string }[]).some((i) => i.payment_intent === pi),
  );
  return (list.body.data as { id: string; payment_intent: string }[]).find((i) => i.payment_intent === pi)!;
}

/** The invoice once its delivery is final (the access point's Saxon run takes seconds). */
const finished = (m: TestMerchant, id: string) =>
  until(
    () => stack.api(m.testKey, `/v1/invoices/${id}`),
    (r) => ['delivered', 'failed'].includes(r.body.delivery?.status as string),
    60_000,
  ).then((r) => r.body as { id: string; number: string; delivery: Record<string, any> });

async function deliveryEvents(m: TestMerchant, invoiceId: string) {
  const res = await stack.api(m.testKey, '/v1/events?limit=100');
  return (res.body.data as { type: string; data: { id: string; delivery: unknown } }[]).filter(
    (e) => e.type.startsWith('invoice.delivery_') && e.data.id === invoiceId,
  );
}

const transmissionsOf = (invoiceId: string) =>
  stack.accessPoint.transmissions().filter((t) => t.reference === invoiceId);

test('the delivery choice is checked against what it needs', async () => {
  const m = await stack.merchant();
  const res = await stack.api(m.testKey, '/v1/customers', {
    method: 'POST',
    json: { name: 'Án kennitölu', invoice_settings: { delivery_method: 'peppol' } },
  });
  expect(res.status).toBe(400);
  expect(res.body.error.param).toBe('invoice_settings[delivery_method]');
  const bad = await stack.api(m.testKey, '/v1/customers', {
    method: 'POST',
    json: { invoice_settings: { delivery_method: 'fax' } },
  });
  expect(bad.status).toBe(400);
  const plain = await stack.api(m.testKey, '/v1/customers', { method: 'POST', json: { name: 'Jón' } });
  expect(plain.body.invoice_settings).toEqual({ delivery_method: 'none' });
});

test('a business invoice is delivered; refused ones are never delivered and show failed with the rule ids in the API, events and dashboard', async () => {
  const m = await seller();
  const address = { line1: 'Hverfisgata 4', postal_code: '101', city: 'Reykjavík', country: 'IS' };
  const business = await customer(m, { name: 'Bókhaldsstofan ehf.', kennitala: '4101692659', address });
  // A sole trader marked business (decision 0210): its e-invoice is addressed to a person's
  // kennitala, which the access point's directory does not have.
  const person = await customer(m, {
    name: 'Guðrún Jónsdóttir',
    kennitala: '0101302989',
    address,
    business: true,
  });
  const noAddress = await customer(m, { name: 'Heildsalan ehf.', kennitala: '6503140490' });
  const none = await stack.api(m.testKey, '/v1/customers', {
    method: 'POST',
    json: { name: 'Engin sending ehf.', kennitala: '4101692659', address },
  });

  const [ok, unknown, broken, plain] = await Promise.all([
    buy(m, business),
    buy(m, person),
    buy(m, noAddress),
    buy(m, none.body.id as string),
  ]);
  const [okDone, unknownDone, brokenDone] = await Promise.all([
    finished(m, ok.id),
    finished(m, unknown.id),
    finished(m, broken.id),
  ]);

  // (a) Delivered, to the buyer's kennitala as participant id, with the event.
  expect(okDone.delivery).toMatchObject({
    method: 'peppol',
    status: 'delivered',
    receiver: '0196:4101692659',
    failure_reasons: [],
  });
  expect(transmissionsOf(ok.id)).toMatchObject([
    { status: 'delivered', sender: '0196:5501692829', receiver: '0196:4101692659' },
  ]);
  expect((await deliveryEvents(m, ok.id)).map((e) => e.type)).toEqual(['invoice.delivery_succeeded']);

  // (b) Refused: never delivered, failed with the rule ids.
  expect(unknownDone.delivery).toMatchObject({ status: 'failed', receiver: '0196:0101302989' });
  expect(unknownDone.delivery.failure_reasons.map((r: { rule: string }) => r.rule)).toEqual([
    'receiver_not_registered',
  ]);
  // A business without an address has no valid e-invoice (IS-R-005): Skil refuses to make one
  // (decision 0210), so nothing is sent at all, and the delivery says why.
  expect(brokenDone.delivery.status).toBe('failed');
  const brokenRules = brokenDone.delivery.failure_reasons.map((r: { rule: string }) => r.rule);
  expect(brokenRules).toEqual(['buyer_incomplete']);
  expect(brokenDone.delivery.failure_reasons[0].message).toContain('IS-R-005');
  expect(transmissionsOf(broken.id)).toEqual([]);
  for (const inv of [unknown, broken]) {
    if (inv === unknown) expect(transmissionsOf(inv.id).map((t) => t.status)).toEqual(['rejected']);
    const events = await deliveryEvents(m, inv.id);
    expect(events.map((e) => e.type)).toEqual(['invoice.delivery_failed']);
    expect(events[0]!.data.delivery).toMatchObject({ status: 'failed' });
  }
  // A customer who chose no delivery: nothing is sent.
  expect((await stack.api(m.testKey, `/v1/invoices/${plain.id}`)).body.delivery).toBeNull();
  expect(transmissionsOf(plain.id)).toEqual([]);

  // The payment's dashboard page shows each delivery's status and the refused one's rule ids.
  const user = await createMerchantUser(stack.knex, m.id);
  const tab = await openPage(browser, stack.url);
  const { page } = tab;
  await page.goto(`${stack.url}/dashboard/sign-in`);
  await page.getByLabel('Email').fill(user.email);
  await page.getByLabel('Password').fill(user.password);
  await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Sign in' }).click()]);
  const status = page.getByTestId('invoice-delivery-status');
  await page.goto(`${stack.url}/dashboard/payments/${ok.payment_intent}`);
  await expect(status.getAttribute('data-status')).resolves.toBe('delivered');
  await page.goto(`${stack.url}/dashboard/payments/${unknown.payment_intent}`);
  await expect(status.getAttribute('data-status')).resolves.toBe('failed');
  await expect(page.getByTestId('invoice-delivery-reasons').innerText()).resolves.toContain(
    'receiver_not_registered',
  );
  for (const [lang, width] of [
    ['en', 1280],
    ['is', 390],
  ] as const) {
    await page.setViewportSize({ width, height: 900 });
    await page.goto(`${stack.url}/dashboard/payments/${broken.payment_intent}?lang=${lang}`);
    await expect(status.getAttribute('data-status')).resolves.toBe('failed');
    await expect(status.innerText()).resolves.toBe(lang === 'en' ? 'Failed' : 'Mistókst');
    const reasons = await page.getByTestId('invoice-delivery-reasons').innerText();
    for (const rule of brokenRules) expect(reasons).toContain(rule);
    await expect(seriousAccessibilityFindings(page)).resolves.toEqual([]);
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    expect(overflow).toBeLessThanOrEqual(0);
  }
  expect(tab.errors).toEqual([]);
  await tab.context.close();
  // Four checkouts, one Saxon run of both artefacts (seconds of JVM start on a loaded machine) and
  // five page loads with axe.
}, 120_000);

test('a customer who chose e-mail gets the invoice PDF at its address', async () => {
  const m = await seller();
  // Receipts off (decision 0141): the one message with the invoice is the delivery's.
  const off = await stack.api(m.testKey, '/v1/merchant', {
    method: 'PATCH',
    json: { receipt_emails: false },
  });
  expect(off.status).toBe(200);
  const email = `reikningar-${m.id.slice(-8).toLowerCase()}@example.is`;
  const res = await stack.api(m.testKey, '/v1/customers', {
    method: 'POST',
    json: { name: 'Póstsending ehf.', email, invoice_settings: { delivery_method: 'email' } },
  });
  expect(res.status).toBe(200);
  const invoice = await buy(m, res.body.id as string);
  const done = await finished(m, invoice.id);
  expect(done.delivery).toMatchObject({ method: 'email', status: 'delivered', receiver: email });
  await stack.mail.waitFor((msg) => msg.to.includes(email), 20_000);
  const mails = stack.mail.messages().filter((msg) => msg.to.includes(email));
  expect(mails.map((msg) => msg.attachments.map((a) => [a.filename, a.contentType]))).toEqual([
    [[`${done.number}.pdf`, 'application/pdf']],
  ]);
  expect(transmissionsOf(invoice.id)).toEqual([]);
  expect((await deliveryEvents(m, invoice.id)).map((e) => e.type)).toEqual(['invoice.delivery_succeeded']);
});

test('sending an invoice again is harmless: six deliveries at once make one transmission and one event', async () => {
  const m = await seller();
  const business = await customer(m, {
    name: 'Bókhaldsstofan ehf.',
    kennitala: '4101692659',
    address: { line1: 'Hverfisgata 4', postal_code: '101', city: 'Reykjavík', country: 'IS' },
  });
  const invoice = await buy(m, business);
  const input = { merchantId: m.id, livemode: false, invoiceId: invoice.id };
  // Five more runs of the delivery beside the one started after commit, as retries and a relay
  // that found it open would be.
  const outcomes = await Promise.all(
    [1, 2, 3, 4, 5].map((n) =>
      stack.client.workflow.execute('invoiceDelivery', {
        workflowId: `invoice-delivery-again/${invoice.id}/${n}`,
        taskQueue: stack.taskQueue,
        args: [input],
      }),
    ),
  );
  expect(outcomes).toEqual(['delivered', 'delivered', 'delivered', 'delivered', 'delivered']);
  const done = await finished(m, invoice.id);
  expect(done.delivery.status).toBe('delivered');
  expect(transmissionsOf(invoice.id)).toHaveLength(1);
  expect((await deliveryEvents(m, invoice.id)).map((e) => e.type)).toEqual(['invoice.delivery_succeeded']);
});

test('the dashboard customer form makes a consumer a business buyer; its next invoice is an e-invoice the official artefacts accept', async () => {
  const m = await seller();
  const email = `innkaup-${m.id.slice(-8).toLowerCase()}@example.is`;
  const created = await stack.api(m.testKey, '/v1/customers', {
    method: 'POST',
    json: { name: 'Vélsmiðjan ehf.', email },
  });
  expect(created.status).toBe(200);
  const id = created.body.id as string;
  const before = await buy(m, id);
  expect((await stack.api(m.testKey, `/v1/invoices/${before.id}`)).body.einvoice).toBe(false);

  const user = await createMerchantUser(stack.knex, m.id);
  const tab = await openPage(browser, stack.url);
  const { page } = tab;
  await page.goto(`${stack.url}/dashboard/sign-in?lang=en`);
  await page.getByLabel('Email').fill(user.email);
  await page.getByLabel('Password').fill(user.password);
  await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Sign in' }).click()]);
  const form = page.getByTestId('customer-edit');
  const save = (label: string) =>
    Promise.all([page.waitForNavigation(), form.getByRole('button', { name: label }).click()]);
  const errorOf = (param: string) => page.locator(`[data-error="${param}"]`);
  const checkLayout = async () => {
    await expect(seriousAccessibilityFindings(page)).resolves.toEqual([]);
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    expect(overflow).toBeLessThanOrEqual(0);
  };

  // Icelandic at phone width: a kennitala that is no date and a GLN whose check digit fails are
  // shown at their fields.
  await page.setViewportSize({ width: 390, height: 900 });
  await page.goto(`${stack.url}/dashboard/customers/${id}?lang=is`);
  await Promise.all([page.waitForNavigation(), page.getByTestId('customer-edit-link').click()]);
  await form.getByLabel('Kaupir sem fyrirtæki').check();
  await form.getByLabel('Kennitala').fill('4113692659');
  await form.getByLabel('GLN (valfrjálst)').fill('5690000000001');
  await save('Vista');
  await expect(errorOf('kennitala').innerText()).resolves.toContain('dagsetningu');
  await expect(errorOf('gln').innerText()).resolves.toContain('13 tölustafi');
  await expect(form.getByLabel('Kennitala').getAttribute('aria-invalid')).resolves.toBe('true');
  await checkLayout();

  // English at desktop width: Peppol delivery with neither kennitala nor Peppol id is the service's
  // refusal (decision 0217), shown at the delivery choice.
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(`${stack.url}/dashboard/customers/${id}/edit?lang=en`);
  await form.getByLabel('Peppol e-invoice').check();
  await save('Save');
  await expect(errorOf('delivery').innerText()).resolves.toContain('needs a kennitala or a Peppol id');
  await expect(errorOf('kennitala').count()).resolves.toBe(0);
  await checkLayout();

  // The buyer data a business e-invoice needs, with a GLN and delivery by e-mail.
  await form.getByLabel('Buys as a business').check();
  await form.getByLabel('Kennitala').fill('410169-2659');
  await form.getByLabel('Street and number').fill('Smiðjuvegur 4');
  await form.getByLabel('Postcode').fill('200');
  await form.getByLabel('Town').fill('Kópavogur');
  await form.getByLabel('GLN (optional)').fill('5690000000008');
  await form.getByLabel('E-mail with PDF').check();
  await save('Save');
  await expect(page.locator('.notice.ok').innerText()).resolves.toContain('Saved');
  await checkLayout();
  for (const [lang, width] of [
    ['en', 390],
    ['is', 1280],
  ] as const) {
    await page.setViewportSize({ width, height: 900 });
    await page.goto(`${stack.url}/dashboard/customers/${id}/edit?lang=${lang}`);
    await expect(form.getByLabel(lang === 'en' ? 'Postcode' : 'Póstnúmer').inputValue()).resolves.toBe('200');
    await checkLayout();
  }
  const customer = (await stack.api(m.testKey, `/v1/customers/${id}`)).body;
  expect(customer).toMatchObject({
    business: true,
    kennitala: '4101692659',
    address: { line1: 'Smiðjuvegur 4', postal_code: '200', city: 'Kópavogur', country: 'IS' },
    gln: '5690000000008',
    peppol_id: null,
    einvoice: true,
    invoice_settings: { delivery_method: 'email' },
  });
  // The change is the member's, in the audit log as every dashboard write (decision 0227).
  const audit = await page.request.get(`${stack.url}/dashboard/audit-log.csv`);
  expect(audit.status()).toBe(200);
  expect(await audit.text()).toContain('POST /dashboard/customers/:id/edit');
  // The two refused saves answered 400, as a form with faults does; nothing else went wrong.
  expect(tab.errors.filter((e) => !/status of 400 \(Bad Request\)/.test(e))).toEqual([]);
  expect(tab.errors).toHaveLength(2);
  await tab.context.close();

  // Its next invoice is a business e-invoice: the official artefacts find nothing fatal.
  const after = await buy(m, id);
  const ubl = await stack.api(m.testKey, `/v1/invoices/${after.id}/ubl`);
  expect(ubl.status).toBe(200);
  const [report] = await validateEInvoices([ubl.text]);
  expect(fatalIds(report!.en16931)).toEqual([]);
  expect(fatalIds(report!.peppol)).toEqual([]);
  expect((await finished(m, after.id)).delivery).toMatchObject({ method: 'email', status: 'delivered' });
}, 120_000);

test('a partial refund’s credit note is delivered as its invoice was; one the access point refuses shows failed with the reason', async () => {
  const m = await seller();
  const address = { line1: 'Hverfisgata 4', postal_code: '101', city: 'Reykjavík', country: 'IS' };
  const business = await customer(m, { name: 'Bókhaldsstofan ehf.', kennitala: '4101692659', address });
  const person = await customer(m, {
    name: 'Guðrún Jónsdóttir',
    kennitala: '0101302989',
    address,
    business: true,
  });
  // Refunded at once: the invoice's and the credit note's deliveries run side by side, and the
  // access point's Saxon runs overlap.
  const [ok, unknown] = await Promise.all([buy(m, business), buy(m, person)]);
  const refund = async (inv: { id: string; payment_intent: string }) => {
    const r = await stack.api(m.testKey, '/v1/refunds', {
      method: 'POST',
      json: { payment_intent: inv.payment_intent, amount: 2990 },
    });
    expect(r.status).toBe(200);
    const notes = await until(
      () => stack.api(m.testKey, `/v1/credit-notes?invoice=${inv.id}`),
      (res) => (res.body.data as unknown[]).length === 1,
    );
    return notes.body.data[0].id as string;
  };
  const [okNote, refusedNote] = await Promise.all([refund(ok), refund(unknown)]);
  const noteDone = (id: string) =>
    until(
      () => stack.api(m.testKey, `/v1/credit-notes/${id}`),
      (r) => ['delivered', 'failed'].includes(r.body.delivery?.status as string),
      60_000,
    ).then((r) => r.body as { id: string; total: number; delivery: Record<string, any> });
  const [delivered, refused] = await Promise.all([noteDone(okNote), noteDone(refusedNote)]);

  expect(delivered.total).toBe(2990);
  expect(delivered.delivery).toMatchObject({
    method: 'peppol',
    status: 'delivered',
    receiver: '0196:4101692659',
    failure_reasons: [],
  });
  // The access point got a credit note, validated it with the official artefacts and delivered it.
  expect(transmissionsOf(okNote)).toMatchObject([
    { status: 'delivered', sender: '0196:5501692829', receiver: '0196:4101692659' },
  ]);
  expect(refused.delivery).toMatchObject({ status: 'failed', receiver: '0196:0101302989' });
  expect(refused.delivery.failure_reasons.map((r: { rule: string }) => r.rule)).toEqual([
    'receiver_not_registered',
  ]);
  expect(transmissionsOf(refusedNote).map((t) => t.status)).toEqual(['rejected']);
  const events = (await stack.api(m.testKey, '/v1/events?limit=100')).body.data as {
    type: string;
    data: { id: string; delivery: { status: string } };
  }[];
  const noteEvents = (id: string) =>
    events.filter((e) => e.type.startsWith('credit_note.delivery_') && e.data.id === id);
  expect(noteEvents(okNote).map((e) => e.type)).toEqual(['credit_note.delivery_succeeded']);
  expect(noteEvents(refusedNote).map((e) => [e.type, e.data.delivery.status])).toEqual([
    ['credit_note.delivery_failed', 'failed'],
  ]);

  // The invoice's dashboard page shows each credit note's delivery, in both languages and widths.
  const user = await createMerchantUser(stack.knex, m.id);
  const tab = await openPage(browser, stack.url);
  const { page } = tab;
  await page.goto(`${stack.url}/dashboard/sign-in?lang=en`);
  await page.getByLabel('Email').fill(user.email);
  await page.getByLabel('Password').fill(user.password);
  await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Sign in' }).click()]);
  await page.goto(`${stack.url}/dashboard/invoices/${ok.id}`);
  await expect(
    page
      .locator(`[data-credit-note="${okNote}"]`)
      .getByTestId('credit-note-delivery-status')
      .getAttribute('data-status'),
  ).resolves.toBe('delivered');
  for (const [lang, width] of [
    ['en', 1280],
    ['is', 390],
  ] as const) {
    await page.setViewportSize({ width, height: 900 });
    await page.goto(`${stack.url}/dashboard/invoices/${unknown.id}?lang=${lang}`);
    const row = page.locator(`[data-credit-note="${refusedNote}"]`);
    const status = row.getByTestId('credit-note-delivery-status');
    await expect(status.getAttribute('data-status')).resolves.toBe('failed');
    await expect(status.innerText()).resolves.toBe(lang === 'en' ? 'Failed' : 'Mistókst');
    await expect(row.getByTestId('credit-note-delivery-reasons').innerText()).resolves.toContain(
      'receiver_not_registered',
    );
    await expect(seriousAccessibilityFindings(page)).resolves.toEqual([]);
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    expect(overflow).toBeLessThanOrEqual(0);
  }
  expect(tab.errors).toEqual([]);
  await tab.context.close();
}, 120_000);
