/**
 * Invoices in the dashboard (decision 0233): the list, an invoice's page with its credit notes and
 * documents, the links to it from its payment, subscription and customer, and the customer's one
 * timeline. Everything is made through the API: a subscription's first charge issues the invoice,
 * a partial refund of it the credit note.
 */
import { startTestStack, type TestMerchant, type TestStack } from '../helpers/stack';
import { WebClient, createMerchantUser } from '../helpers/accounts';
import { until } from '../helpers/until';

let stack: TestStack;
let m: TestMerchant;
let web: WebClient;
const ids = {} as Record<
  'customer' | 'subscription' | 'invoice' | 'number' | 'payment' | 'note' | 'claim' | 'theirInvoice',
  string
>;

const card = { number: '4242424242424242', exp_month: 12, exp_year: 2040, cvc: '123' };

async function ok(p: Promise<{ status: number; body: any }>) {
  const r = await p;
  if (r.status !== 200) throw new Error(`${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

async function invoiced(key: string) {
  const api = (path: string, json?: unknown, method = 'POST') =>
    stack.api(key, path, json === undefined ? {} : { method, json });
  await ok(
    api(
      '/v1/merchant',
      {
        kennitala: '4709063520',
        bank_account: '0101-26-123456',
        legal_address: { street: 'Laugavegur 1', city: 'Reykjavík', postalCode: '101', country: 'IS' },
      },
      'PATCH',
    ),
  );
  const customer = await ok(
    api('/v1/customers', {
      name: 'Ragnheiður',
      email: 'ragga@example.test',
      kennitala: '0101302989',
      // A sole trader with an address: its invoices are e-invoices (decision 0210).
      business: true,
      address: { line1: 'Hverfisgata 4', postal_code: '101', city: 'Reykjavík', country: 'IS' },
    }),
  );
  const pm = await ok(api('/v1/payment-methods', { card, customer: customer.id }));
  const product = await ok(
    api('/v1/products', {
      name: 'Mánaðaráskrift',
      vat_rate: 24,
      default_price_data: { unit_amount: 4990, recurring: { interval: 'month' } },
    }),
  );
  const sub = await ok(
    api('/v1/subscriptions', {
      customer: customer.id,
      price: product.default_price,
      default_payment_method: pm.id,
    }),
  );
  const invoice = (
    await until(
      () => api(`/v1/invoices?subscription=${sub.id}`, undefined),
      (r) => r.body.data?.length === 1,
    )
  ).body.data[0];
  return { api, customer, sub, invoice };
}

beforeAll(async () => {
  stack = await startTestStack({ realBaseUrl: true });
  m = await stack.merchant('Reikningar ehf.');
  const other = await stack.merchant('Aðrir reikningar ehf.');
  const { api, customer, sub, invoice } = await invoiced(m.testKey);
  await ok(api('/v1/refunds', { payment_intent: invoice.payment_intent, amount: 990 }));
  const notes = await until(
    () => api(`/v1/credit-notes?invoice=${invoice.id}`, undefined),
    (r) => r.body.data?.length === 1,
  );
  const claim = await ok(
    api('/v1/claims', {
      customer: customer.id,
      amount: 2500,
      due_date: new Date(Date.now() + 20 * 86_400_000).toISOString().slice(0, 10),
    }),
  );
  Object.assign(ids, {
    customer: customer.id,
    subscription: sub.id,
    invoice: invoice.id,
    number: invoice.number,
    payment: invoice.payment_intent,
    note: notes.body.data[0].id,
    claim: claim.id,
    theirInvoice: (await invoiced(other.testKey)).invoice.id,
  });
  const user = await createMerchantUser(stack.knex, m.id, 'read_only');
  web = new WebClient(stack.url);
  expect((await web.signIn(user.email, user.password)).status).toBe(303);
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

test('the invoices list and an invoice page: lines, credit note, PDF and UBL links that download', async () => {
  const list = await web.get('/dashboard/invoices?lang=en');
  expect(list.status).toBe(200);
  expect([...list.text.matchAll(/data-invoice="([^"]+)"/g)].map((x) => x[1])).toEqual([ids.invoice]);
  const page = await web.get(`/dashboard/invoices/${ids.invoice}?lang=en`);
  expect(page.status).toBe(200);
  expect(page.text).toContain(ids.number);
  expect(page.text).toContain(`data-credit-note="${ids.note}"`);
  expect(page.text).toMatch(/data-testid="amount-credited">ISK 990</);
  for (const link of [
    `/dashboard/payments/${ids.payment}`,
    `/dashboard/subscriptions/${ids.subscription}`,
    `/dashboard/customers/${ids.customer}`,
  ])
    expect(page.text).toContain(`href="${link}"`);
  const pdf = await web.get(`/dashboard/invoices/${ids.invoice}/invoice.pdf`);
  expect(pdf.status).toBe(200);
  expect(pdf.headers.get('content-type')).toBe('application/pdf');
  expect(pdf.text.startsWith('%PDF-')).toBe(true);
  const ubl = await web.get(`/dashboard/invoices/${ids.invoice}/invoice.xml`);
  expect(ubl.status).toBe(200);
  expect(ubl.headers.get('content-type')).toMatch(/^application\/xml/);
  expect(ubl.text).toContain(`<cbc:ID>${ids.number}</cbc:ID>`);
  const note = await web.get(`/dashboard/invoices/${ids.invoice}/credit-notes/${ids.note}`);
  expect(note.status).toBe(200);
  expect(note.text).toContain('<CreditNote');
});

test('the payment, the subscription and the customer link their invoice', async () => {
  for (const path of [
    `/dashboard/payments/${ids.payment}`,
    `/dashboard/subscriptions/${ids.subscription}`,
    `/dashboard/customers/${ids.customer}`,
  ]) {
    const res = await web.get(`${path}?lang=is`);
    expect({ path, status: res.status }).toEqual({ path, status: 200 });
    expect(res.text).toContain(`href="/dashboard/invoices/${ids.invoice}"`);
  }
});

test("the customer's timeline: payments, the subscription, the krafa and the invoice, newest first", async () => {
  const res = await web.get(`/dashboard/customers/${ids.customer}?lang=en`);
  const timeline = /data-testid="customer-timeline">([\s\S]*?)<\/ol>/.exec(res.text)![1]!;
  const entries = [...timeline.matchAll(/<li data-kind="([\w-]+)">\s*<time datetime="([^"]+)"/g)].map(
    (x) => ({
      kind: x[1]!,
      at: x[2]!,
    }),
  );
  const kinds = new Set(entries.map((e) => e.kind));
  expect([...kinds].sort()).toEqual(['claim', 'invoice', 'payment', 'subscription']);
  const times = entries.map((e) => e.at);
  expect(times).toEqual([...times].sort().reverse());
  expect(timeline).toContain(`/dashboard/payments/${ids.payment}`);
  // The customer's e-invoice identity (decision 0210): a sole trader marked business, with an
  // address, so its invoices are e-invoices.
  const facts = res.text.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');
  expect(facts).toContain('Address Hverfisgata 4, 101 Reykjavík');
  expect(facts).toContain('Buys as A business');
  expect(facts).toContain('E-invoices (Peppol) Yes');
  expect(facts).toContain('Invoice delivery None');
  const is = (await web.get(`/dashboard/customers/${ids.customer}?lang=is`)).text
    .replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ');
  expect(is).toContain('Kaupir sem Fyrirtæki');
  expect(is).toContain('Rafrænir reikningar (Peppol) Já');
});

test("another merchant's invoice, and a credit note under the wrong invoice, are not found", async () => {
  for (const path of [
    `/dashboard/invoices/${ids.theirInvoice}`,
    `/dashboard/invoices/${ids.theirInvoice}/invoice.pdf`,
    `/dashboard/invoices/${ids.theirInvoice}/invoice.xml`,
    `/dashboard/invoices/${ids.theirInvoice}/credit-notes/${ids.note}`,
  ]) {
    const res = await web.get(path);
    expect({ path, status: res.status }).toEqual({ path, status: 404 });
    expect(res.text).not.toContain('%PDF');
  }
});
