import type { Browser } from 'playwright-core';
import { verify } from '@octokit/webhooks-methods';
import { launchChromium, openPage } from '../helpers/browser';
import { sharedTestStack, type TestMerchant, type TestStack } from '../helpers/stack';
import { startReceiver } from '../helpers/receiver';
import { simulatedToken } from '../helpers/subscriptions';
import { until } from '../helpers/until';
import { newId, ID_PREFIX, randomBase62 } from '../../domain/ids';
import { claimIdOf } from '../../adapters/banks/claims-api';

/**
 * The card → krafa fallback end to end (decision 0105) with the payer in headless
 * Chromium: on a test clock a subscription's card retries run out, a krafa for the renewal is issued
 * at the simulated bank, the payer pays it in the online bank, one claim payments sync recovers the
 * subscription, and the merchant's endpoint gets the signed webhooks of the whole path.
 */

const CLAIMANT = '4701801239';
const PAYER = '1201603389';
const T0 = Date.UTC(2027, 0, 4, 12, 0, 0);
const unixOf = (ms: number) => Math.floor(ms / 1000);
const EVENTS = [
  'subscription.payment_failed',
  'subscription.updated',
  'subscription.payment_recovered',
  'claim.created',
  'claim.paid',
  'payment_intent.captured',
];

let stack: TestStack;
let browser: Browser;
let m: TestMerchant;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let secret: string;

beforeAll(async () => {
  [stack, browser, receiver] = await Promise.all([sharedTestStack(), launchChromium(), startReceiver()]);
  m = await stack.merchant('Kröfuvernd ehf.');
  const merchant = await api(
    '/v1/merchant',
    { kennitala: CLAIMANT, dunning: { claim_fallback: true } },
    'PATCH',
  );
  expect(merchant.body.dunning).toEqual({ claim_fallback: true });
  const channel = await api('/v1/notification-channels', {
    type: 'webhook',
    config: { url: receiver.url },
    event_subscriptions: EVENTS,
  });
  expect(channel.status).toBe(200);
  secret = channel.body.config.secret;
});
afterAll(async () => {
  await browser?.close();
  await receiver?.close();
  await stack?.stop();
});

function api(p: string, json?: unknown, method = 'POST') {
  return stack.api(m.testKey, p, json === undefined ? {} : { method, json });
}

async function card(customerId: string, behaviour: 'success' | 'generic_decline') {
  const id = newId(ID_PREFIX.paymentMethod);
  await stack.knex('payment_methods').insert({
    id,
    merchant_id: m.id,
    livemode: false,
    customer_id: customerId,
    acquirer_token: simulatedToken(behaviour),
    card_brand: 'visa',
    card_last4: behaviour === 'success' ? '4242' : '0002',
    card_exp_month: 12,
    card_exp_year: 2040,
  });
  return id;
}

test('retries run out, the krafa is paid in the online bank, the subscription recovers; signed webhooks', async () => {
  const product = await api('/v1/products', { name: 'Áskrift', vat_rate: 24 });
  const price = await api('/v1/prices', {
    product: product.body.id,
    unit_amount: 2990,
    recurring: { interval: 'month' },
  });
  const clock = (await api('/v1/test_helpers/test_clocks', { frozen_time: unixOf(T0) })).body.id as string;
  const customer = await api('/v1/customers', { name: 'Guðrún', kennitala: PAYER, test_clock: clock });
  const sub = await api('/v1/subscriptions', {
    customer: customer.body.id,
    price: price.body.id,
    default_payment_method: await card(customer.body.id, 'success'),
  });
  const id = sub.body.id as string;
  await until(
    () => api(`/v1/subscriptions/${id}`),
    (r) => r.body.status === 'active',
  );
  await api(`/v1/subscriptions/${id}`, {
    default_payment_method: await card(customer.body.id, 'generic_decline'),
  });

  // The renewal of 4 February fails and so do its four retries, the last on 18 February.
  await api(`/v1/test_helpers/test_clocks/${clock}/advance`, {
    frozen_time: unixOf(Date.UTC(2027, 1, 19, 13)),
  });
  await until(
    () => api(`/v1/test_helpers/test_clocks/${clock}`),
    (r) => r.body.status === 'ready',
    55_000,
  );
  const waiting = (await api(`/v1/subscriptions/${id}`)).body;
  expect(waiting).toMatchObject({ status: 'past_due', dunning: { claim_fallback: null } });
  const claim = (
    await until(
      () => api(`/v1/claims/${waiting.dunning.claim}`),
      (r) => r.body.status === 'issued',
    )
  ).body;
  const bankClaimId = claimIdOf({
    claimantId: claim.claim_key.claimant_id,
    account: claim.claim_key.account,
    dueDate: claim.claim_key.due_date,
  });

  // The payer opens the online bank, finds the krafa among their unpaid ones and pays it.
  const bank = await openPage(browser, stack.bank!.bank.url);
  try {
    await bank.page.goto(stack.bank!.bank.payerUrl);
    await bank.page.getByLabel('Kennitala').fill(PAYER);
    await Promise.all([
      bank.page.waitForURL(/\/bank\/payor/),
      bank.page.getByRole('button', { name: 'Sýna kröfur' }).click(),
    ]);
    const row = bank.page.locator(`tr[data-claim-id="${bankClaimId}"]`);
    expect(await row.locator('[data-amount-due]').innerText()).toBe('2.990 kr.');
    await Promise.all([
      bank.page.waitForURL(/paid=1/),
      row.getByRole('button', { name: `Greiða ${bankClaimId}` }).click(),
    ]);
    expect(bank.errors).toEqual([]);
  } finally {
    await bank.context.close();
  }

  const sync = await stack.client.workflow.execute('claimPaymentsSync', {
    workflowId: `claim-payments-sync/test/${randomBase62(6)}`,
    taskQueue: stack.taskQueue,
    args: [{}],
  });
  expect(sync).toMatchObject({ applied: 1 });
  const recovered = await until(
    () => api(`/v1/subscriptions/${id}`),
    (r) => r.body.status === 'active',
  );
  expect(recovered.body.dunning.claim).toBeNull();
  const paid = (await api(`/v1/claims/${claim.id}`)).body;
  expect(paid).toMatchObject({ status: 'paid', amount_paid: 2990 });

  // The webhooks of the path, each signed: the failure, the krafa (issued, paid, its payment), the recovery.
  const mine = () =>
    receiver.received.filter((r) => [id, claim.id, paid.payment_intent].includes(r.body?.data?.id));
  await until(
    () => Promise.resolve(mine().map((r) => r.body.type as string)),
    (types) => types.includes('subscription.payment_recovered') && types.includes('payment_intent.captured'),
    20_000,
  );
  const types = mine().map((r) => r.body.type);
  for (const t of EVENTS) expect(types).toContain(t);
  const recoveredEvent = mine().find((r) => r.body.type === 'subscription.payment_recovered')!;
  expect(recoveredEvent.body.data).toMatchObject({
    status: 'active',
    latest_renewal: { status: 'paid', amount: 2990, payment_intent: paid.payment_intent },
  });
  for (const r of mine())
    expect(await verify(secret, r.rawBody.toString('utf8'), String(r.headers['x-service-signature']))).toBe(
      true,
    );
  expect(stack.bank!.problems()).toEqual([]);
});
