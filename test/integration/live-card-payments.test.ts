import { startTestStack, type TestMerchant, type TestStack } from '../helpers/stack';
import { createOperator } from '../helpers/accounts';
import { settleDay } from '../helpers/settlement';
import { nextBankingDay } from '../../domain/banking-days';
import { startTeyaPeer, type TeyaPeer } from '../../simulators/teya/teya-peer';
import { TEYA_ID_PREFIX, createTeyaCardAcquirer } from '../../adapters/acquirers/teya/teya-card-acquirer';
import type { Wallet } from '../../adapters/acquirers/card-acquirer';

/**
 * Issue 24, done-means 3: a live-mode card payment through the acquirer adapter against its
 * simulated peer, end to end to a settlement line (decisions 0163–0165). The live checkout page is
 * paid with a card; the payment goes through Teya's adapter (account verification with a saved
 * token, pre-authorisation on the token, capture), a refund goes back through it, and the
 * operator's live settlement day pays the merchant out for it. The simulated Teya holds every
 * exchange to the schemas written from Teya's published reference: none may break it.
 */

jest.setTimeout(90_000);

const STORE = '7a3f2c21-5d6e-4637-8d8a-1f178d4d2a0e';
let peer: TeyaPeer;
let stack: TestStack;
let operator: { token: string };
/** What the live adapter reports; a test switches Apple Pay on as an operator would configure it. */
const wallets: Wallet[] = [];

beforeAll(async () => {
  peer = await startTeyaPeer({
    clientId: 'skil-platform',
    clientSecret: 'teya-secret-of-the-test',
    storeId: STORE,
  });
  const teya = createTeyaCardAcquirer({
    apiUrl: peer.apiUrl,
    tokenUrl: peer.tokenUrl,
    clientId: 'skil-platform',
    clientSecret: 'teya-secret-of-the-test',
    storeId: STORE,
  });
  stack = await startTestStack({
    realBaseUrl: true,
    liveAcquirer: { client: teya, idPrefix: TEYA_ID_PREFIX, wallets },
  });
  operator = await createOperator(stack.knex);
});
afterAll(async () => {
  await stack?.stop();
  await peer?.stop();
});

const op = (path: string) => stack.api(operator.token, `/v1/operator${path}`, { method: 'POST', json: {} });

/** A merchant through onboarding: profile, submitted, approved; cards activated unless told not to. */
async function onboarded(name: string, activateCards = true): Promise<TestMerchant> {
  const m = await stack.merchant(name);
  const profile = await stack.api(m.testKey, '/v1/merchant', {
    method: 'PATCH',
    json: {
      merchant_type: 'company',
      kennitala: '4602070880',
      phone: '+354 550 6000',
      business_description: 'Kaffihús',
      bank_account: '0133-26-012345',
      legal_address: { street: 'Ármúli 25', city: 'Reykjavík', postalCode: '108', country: 'IS' },
    },
  });
  expect(profile.status).toBe(200);
  expect((await stack.api(m.testKey, '/v1/merchant/submit', { method: 'POST' })).status).toBe(200);
  expect((await op(`/merchants/${m.id}/approve`)).status).toBe(200);
  if (activateCards) expect((await op(`/merchants/${m.id}/card-acquirer/activate`)).status).toBe(200);
  return m;
}

async function submit(url: string, fields: Record<string, string>) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
    redirect: 'manual',
  });
  return { status: res.status, text: await res.text() };
}

const card = { number: '4242424242424242', exp_month: 12, exp_year: 2034, cvc: '123' };

test('live cards wait for the operator: 503 card_payments_not_enabled until the acquirer is activated', async () => {
  const m = await onboarded('Bíður ehf.', false);
  const refused = await stack.api(m.liveKey, '/v1/payment-intents', {
    method: 'POST',
    json: { amount: 1_000, card, confirm: true },
  });
  expect(refused.status).toBe(503);
  expect(refused.body.error.code).toBe('card_payments_not_enabled');
  expect(peer.exchanges.filter((e) => e.operation !== 'token')).toEqual([]);

  await op(`/merchants/${m.id}/card-acquirer/activate`);
  const paid = await stack.api(m.liveKey, '/v1/payment-intents', {
    method: 'POST',
    json: { amount: 1_000, card, confirm: true },
  });
  expect(paid.status).toBe(200);
  expect(paid.body).toMatchObject({ status: 'succeeded', livemode: true, amount_received: 1_000 });
});

test('a live checkout paid by card through Teya, refunded in part, settles as lines of the live run', async () => {
  const m = await onboarded('Lifandi kaffi ehf.');
  const before = peer.exchanges.length;
  const session = await stack.api(m.liveKey, '/v1/checkout/sessions', {
    method: 'POST',
    json: { amount: 8_900, form_fields: [] },
  });
  expect(session.status).toBe(200);
  expect(session.body.livemode).toBe(true);
  const paid = await submit(session.body.url, {
    action: 'pay',
    card_number: '4242424242424242',
    card_exp: '12/34',
    card_cvc: '123',
  });
  expect(paid.status).toBeLessThan(400);
  const done = (await stack.api(m.liveKey, `/v1/checkout/sessions/${session.body.id}`)).body;
  expect(done).toMatchObject({ status: 'complete', payment_status: 'paid' });
  const pi = (await stack.api(m.liveKey, `/v1/payment-intents/${done.payment_intent}`)).body;
  expect(pi).toMatchObject({ status: 'succeeded', livemode: true, amount_received: 8_900 });
  // The test environment's acquirer never saw it: the card went to Teya.
  expect(await stack.knex('payment_methods').where({ id: pi.payment_method }).first()).toMatchObject({
    livemode: true,
    acquirer_token: expect.stringMatching(/^teya_tok_/),
  });

  const refund = await stack.api(m.liveKey, '/v1/refunds', {
    method: 'POST',
    json: { payment_intent: pi.id, amount: 1_900 },
  });
  expect(refund.status).toBe(200);

  const ops = peer.exchanges.slice(before).map((e) => [e.operation, e.status]);
  expect(ops).toEqual([
    ['process_online_transaction', 201],
    ['process_online_transaction', 201],
    ['capture', 201],
    ['refund', 201],
  ]);
  const [verification, preauth] = peer.exchanges
    .slice(before)
    .filter((e) => e.operation === 'process_online_transaction')
    .map((e) => e.request as Record<string, any>);
  expect(verification).toMatchObject({ type: 'ACCOUNT_VERIFICATION', store_payment_method: true });
  expect(preauth).toMatchObject({
    type: 'PRE_AUTHORISATION',
    amount: { currency: 'ISK', value: 8_900 },
    payment_method: { type: 'TOKEN' },
    store_id: STORE,
  });

  const { run, lines } = await settleDay(
    stack,
    operator.token,
    m,
    nextBankingDay(new Date().toISOString().slice(0, 10)),
    true,
  );
  expect(run.livemode).toBe(true);
  // Service fee 1.5 % of 8 900 = 133.5 → 134; Teya reports no fee on the capture.
  expect(lines.map((l) => [l.kind, l.payment_intent, l.gross, l.fee, l.net]).sort()).toEqual(
    [
      ['payment', pi.id, 8_900, 134, 8_766],
      ['refund', pi.id, -1_900, 0, -1_900],
    ].sort(),
  );
  expect(run).toMatchObject({ gross: 7_000, net: 6_866 });
  expect(peer.violations).toEqual([]);
});

test('a card Teya declines is declined on the live page; no money moves', async () => {
  const m = await onboarded('Hafnað ehf.');
  const session = await stack.api(m.liveKey, '/v1/checkout/sessions', {
    method: 'POST',
    json: { amount: 2_500, form_fields: [] },
  });
  const res = await submit(session.body.url, {
    action: 'pay',
    card_number: '4000000000009995',
    card_exp: '12/34',
    card_cvc: '123',
  });
  expect(res.status).toBe(402);
  expect(res.text).toMatch(/insufficient funds|Ekki næg innistæða/);
  expect((await stack.api(m.liveKey, `/v1/checkout/sessions/${session.body.id}`)).body.status).toBe('open');
  expect(peer.violations).toEqual([]);
});

test('the live page offers a wallet button only when the acquirer adapter reports the wallet', async () => {
  const m = await onboarded('Veski ehf.');
  const waiting = await onboarded('Veski bíður ehf.', false);
  const page = async (merchant: TestMerchant) => {
    const s = await stack.api(merchant.liveKey, '/v1/checkout/sessions', {
      method: 'POST',
      json: { amount: 1_500, form_fields: [] },
    });
    return (await fetch(s.body.url)).text();
  };
  const test = await stack.api(m.testKey, '/v1/checkout/sessions', {
    method: 'POST',
    json: { amount: 1_500, form_fields: [] },
  });
  const testPage = await (await fetch(test.body.url)).text();
  expect(testPage).toContain('value="wallet:apple_pay"');
  expect(testPage).toContain('value="wallet:google_pay"');

  // Teya reports no wallet: the live page has none.
  expect(wallets).toEqual([]);
  expect(await page(m)).not.toContain('value="wallet:');

  // The store is enabled for Apple Pay: the live page offers Apple Pay, and only that.
  wallets.push('apple_pay');
  const live = await page(m);
  expect(live).toContain('value="wallet:apple_pay"');
  expect(live).not.toContain('value="wallet:google_pay"');
  expect(live).not.toMatch(/\(test\)|\(prófun\)/);
  // Not to a merchant whose cards are not activated yet.
  expect(await page(waiting)).not.toContain('value="wallet:');
  wallets.length = 0;
});
