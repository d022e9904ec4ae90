/**
 * The dashboard's search (decision 0231), as a member uses it: the header's box on every page, and
 * the results page. Data is made through the API for this merchant, the same again for another
 * merchant, and a customer in this merchant's live mode; the search finds this merchant's test
 * objects only.
 */
import { startTestStack, type TestMerchant, type TestStack } from '../helpers/stack';
import { WebClient, createMerchantUser } from '../helpers/accounts';
import { until } from '../helpers/until';

let stack: TestStack;
let m: TestMerchant;
let other: TestMerchant;
let web: WebClient;

const card = { number: '4242424242424242', exp_month: 12, exp_year: 2040, cvc: '123' };
const KENNITALA = '0101302989';
const ids = {} as Record<'payment' | 'customer' | 'subscription' | 'invoice' | 'claim', string> & {
  invoiceNumber: string;
  theirs: string[];
  live: string;
};

async function ok(p: Promise<{ status: number; body: any }>) {
  const r = await p;
  if (r.status !== 200) throw new Error(`${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

/** The same objects under any merchant key: a customer with the kennitala, a payment, a subscription. */
async function makeData(key: string) {
  const api = (path: string, json?: unknown, method = 'POST') =>
    stack.api(key, path, json === undefined ? {} : { method, json });
  await ok(api('/v1/merchant', { kennitala: '4709063520', bank_account: '0101-26-123456' }, 'PATCH'));
  const customer = await ok(
    api('/v1/customers', {
      name: 'Sigríður Leitardóttir',
      email: 'sigga@example.test',
      kennitala: KENNITALA,
    }),
  );
  const payment = await ok(
    api('/v1/payment-intents', {
      amount: 48_750,
      card: { ...card, number: '4000056655665556' },
      confirm: true,
      customer: customer.id,
      description: 'Leitarvara',
    }),
  );
  const product = await ok(
    api('/v1/products', {
      name: 'Leitaráskrift',
      vat_rate: 24,
      default_price_data: { unit_amount: 3333, recurring: { interval: 'month' } },
    }),
  );
  const pm = await ok(api('/v1/payment-methods', { card, customer: customer.id }));
  const sub = await ok(
    api('/v1/subscriptions', {
      customer: customer.id,
      price: product.default_price,
      default_payment_method: pm.id,
    }),
  );
  const invoices = await until(
    () => api(`/v1/invoices?subscription=${sub.id}`, undefined),
    (r) => r.body.data?.length === 1,
  );
  const claim = await ok(
    api('/v1/claims', {
      payer_kennitala: KENNITALA,
      amount: 6_120,
      due_date: new Date(Date.now() + 20 * 86_400_000).toISOString().slice(0, 10),
    }),
  );
  return { customer, payment, sub, invoice: invoices.body.data[0], claim };
}

beforeAll(async () => {
  stack = await startTestStack({ realBaseUrl: true });
  m = await stack.merchant('Leit ehf.');
  other = await stack.merchant('Önnur leit ehf.');
  const mine = await makeData(m.testKey);
  const theirs = await makeData(other.testKey);
  Object.assign(ids, {
    payment: mine.payment.id,
    customer: mine.customer.id,
    subscription: mine.sub.id,
    invoice: mine.invoice.id,
    invoiceNumber: mine.invoice.number,
    claim: mine.claim.id,
    theirs: [theirs.payment.id, theirs.customer.id, theirs.sub.id, theirs.invoice.id, theirs.claim.id],
  });
  // The same kennitala in this merchant's live mode.
  const live = await stack.api(m.liveKey, '/v1/customers', {
    method: 'POST',
    json: { name: 'Sigríður í raunham', kennitala: KENNITALA },
  });
  expect(live.status).toBe(200);
  ids.live = live.body.id;
  const user = await createMerchantUser(stack.knex, m.id, 'read_only');
  web = new WebClient(stack.url);
  expect((await web.signIn(user.email, user.password)).status).toBe(303);
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

/** The ids the results page links to, by the kind's section. */
async function found(q: string): Promise<Record<string, string[]>> {
  const res = await web.get(`/dashboard/search?q=${encodeURIComponent(q)}&lang=en`);
  expect(res.status).toBe(200);
  const out: Record<string, string[]> = {};
  for (const [, kind, body] of res.text.matchAll(/data-kind="found-(\w+)">([\s\S]*?)<\/section>/g))
    out[kind!] = [...body!.matchAll(/data-hit="([^"]+)"/g)].map((x) => x[1]!);
  return out;
}

test('every merchant page carries the search box, which leads to the results page', async () => {
  for (const page of ['/dashboard/home', '/dashboard/payments', '/dashboard/profile']) {
    const res = await web.get(`${page}?lang=en`);
    expect(res.text).toMatch(/<form\s+class="header-search"\s+method="get"\s+action="\/dashboard\/search"/);
  }
  const empty = await web.get('/dashboard/search?lang=is');
  expect(empty.status).toBe(200);
  expect(empty.text).toContain('Leita í greiðslum');
});

test('a payment by the last four digits of its card and by its amount, written either way', async () => {
  for (const q of ['5556', '48750', '48.750', '48,750 kr.', 'ISK 48,750'])
    expect({ q, payments: (await found(q)).payments }).toEqual({ q, payments: [ids.payment] });
});

test('a customer by kennitala (with or without the dash), and their subscription with them', async () => {
  for (const q of [KENNITALA, '010130-2989']) {
    const hits = await found(q);
    expect({ q, customers: hits.customers, subscriptions: hits.subscriptions, claims: hits.claims }).toEqual({
      q,
      customers: [ids.customer],
      subscriptions: [ids.subscription],
      claims: [ids.claim],
    });
  }
  expect((await found('sigga@example')).customers).toEqual([ids.customer]);
});

test('an invoice by its number, linking to its page; a krafa by its amount', async () => {
  expect((await found(ids.invoiceNumber)).invoices).toEqual([ids.invoice]);
  const res = await web.get(`/dashboard/search?q=${encodeURIComponent(ids.invoiceNumber)}`);
  expect(res.text).toContain(`href="/dashboard/invoices/${ids.invoice}"`);
  expect((await found('6120')).claims).toEqual([ids.claim]);
});

test("never another merchant's objects, nor the other mode's", async () => {
  const seen = new Set<string>();
  for (const q of [
    '5556',
    '48750',
    KENNITALA,
    'Leit',
    'Sigríður',
    ids.invoiceNumber,
    '6120',
    ...ids.theirs,
    ids.live,
  ])
    for (const list of Object.values(await found(q))) for (const id of list) seen.add(id);
  for (const id of [...ids.theirs, ids.live]) expect(seen).not.toContain(id);
  expect(seen).toContain(ids.payment);
  // Their ids typed exactly find nothing here.
  expect(await found(ids.theirs[0]!)).toEqual({});
});

test('words that look like markup or SQL are shown as text and find nothing', async () => {
  const res = await web.get(`/dashboard/search?q=${encodeURIComponent("<b>x</b>' or 1=1 --%_")}&lang=en`);
  expect(res.status).toBe(200);
  expect(res.text).toContain('&lt;b&gt;x&lt;/b&gt;&#39; or 1=1 --%_');
  expect(res.text).not.toContain('data-hit=');
});
