import { startTestStack, type TestMerchant, type TestStack } from '../helpers/stack';
import { WebClient, createMerchantUser, createOperator, type WebResponse } from '../helpers/accounts';

/**
 * Issue 14, done-means 6 (second half): every page route answers with one identical set of
 * security headers (names and values; only the Content-Security-Policy is parameterised per page),
 * `X-Content-Type-Options: nosniff` included. Sessions, links and accounts are made through the
 * real API; the simulated bank's payer page is fetched from the bank's own server.
 */

let stack: TestStack;
let m: TestMerchant;

beforeAll(async () => {
  stack = await startTestStack({ bank: true, worker: false, realBaseUrl: true });
  m = await stack.merchant('Headers ehf.');
});
afterAll(async () => {
  await stack?.stop();
});

// Headers that describe one response, not the page's security: they may differ from page to page.
const PER_RESPONSE = new Set([
  'date',
  'connection',
  'keep-alive',
  'content-length',
  'transfer-encoding',
  'etag',
  'set-cookie',
  'request-id',
]);

function securityHeaders(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  headers.forEach((value, name) => {
    if (!PER_RESPONSE.has(name)) out[name] = value;
  });
  return out;
}

/** Follows a short or payment link to the page it leads to, checking that it is a redirect. */
async function landing(client: WebClient, path: string): Promise<WebResponse> {
  const hop = await client.get(path);
  expect([302, 303]).toContain(hop.status);
  expect(hop.location).toMatch(/\/checkout\/cs_/);
  return client.get(new URL(hop.location!).pathname);
}

test('every page route sends the same security headers, nosniff included', async () => {
  const buyer = new WebClient(stack.url);
  const session = await stack.api(m.testKey, '/v1/checkout/sessions', {
    method: 'POST',
    json: { amount: 4900, success_url: 'https://shop.example/thanks' },
  });
  expect(session.status).toBe(200);
  const link = await stack.api(m.testKey, '/v1/payment-links', { method: 'POST', json: { amount: 2500 } });
  expect(link.status).toBe(200);
  const customer = await stack.api(m.testKey, '/v1/customers', { method: 'POST', json: { name: 'Jón' } });
  const portal = await stack.api(m.testKey, '/v1/billing_portal/sessions', {
    method: 'POST',
    json: { customer: customer.body.id, return_url: 'https://shop.example/account' },
  });
  expect(portal.status).toBe(200);

  const merchantUser = await createMerchantUser(stack.knex, m.id);
  const merchant = new WebClient(stack.url);
  const signInPage = await merchant.get('/dashboard/sign-in');
  expect(
    (
      await merchant.post('/dashboard/sign-in', {
        email: merchantUser.email,
        password: merchantUser.password,
      })
    ).status,
  ).toBe(303);
  const operatorUser = await createOperator(stack.knex);
  const operator = new WebClient(stack.url);
  expect((await operator.signIn(operatorUser.email, operatorUser.password)).status).toBe(303);

  const bankUrl = stack.bank!.bank.payerUrl;
  const payer = await fetch(bankUrl);

  const pages: [string, { status: number; headers: Headers }][] = [
    ['checkout page', await buyer.get(new URL(session.body.url as string).pathname)],
    ['short link', await landing(buyer, new URL(session.body.short_url as string).pathname)],
    ['payment link', await landing(buyer, new URL(link.body.url as string).pathname)],
    ['unknown checkout (404)', await buyer.get('/checkout/cs_doesnotexist')],
    ['unknown short link (404)', await buyer.get('/s/ABCDEFGHIJ')],
    ['portal page', await buyer.get(new URL(portal.body.url as string).pathname)],
    ['dashboard sign-in', signInPage],
    ['dashboard profile', await merchant.get('/dashboard/profile')],
    ['dashboard theme', await merchant.get('/dashboard/theme')],
    ['dashboard API keys', await merchant.get('/dashboard/api-keys')],
    ['device page', await merchant.get('/device')],
    ['operator applications', await operator.get('/dashboard/operator')],
    ['finance runs', await operator.get('/dashboard/finance?env=test')],
    ['finance bank files', await operator.get('/dashboard/finance/bank-files?env=test')],
    ['finance exceptions', await operator.get('/dashboard/finance/exceptions?env=test')],
    ['finance audit', await operator.get('/dashboard/finance/audit?env=test')],
    ['dashboard 404', await merchant.get('/dashboard/no-such-page')],
    ['simulated bank payer page', { status: payer.status, headers: payer.headers }],
  ];

  for (const [name, res] of pages)
    expect({ name, status: res.status }).toEqual({ name, status: name.includes('404') ? 404 : 200 });

  const [first, ...rest] = pages.map(([name, res]) => ({ name, headers: securityHeaders(res.headers) }));
  const withoutCsp = ({ 'content-security-policy': csp, ...others }: Record<string, string>) => {
    expect(csp).toMatch(/^default-src 'none'; /);
    expect(csp).toMatch(/frame-ancestors 'none'/);
    return others;
  };
  const reference = withoutCsp(first!.headers);
  expect(reference).toEqual({
    'content-type': 'text/html; charset=utf-8',
    'x-frame-options': 'DENY',
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'cache-control': 'no-store',
  });
  for (const other of rest) {
    expect(Object.keys(other.headers).sort()).toEqual(Object.keys(first!.headers).sort());
    expect({ page: other.name, headers: withoutCsp(other.headers) }).toEqual({
      page: other.name,
      headers: reference,
    });
  }
});
