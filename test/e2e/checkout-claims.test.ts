import type { Browser } from 'playwright-core';
import { verify } from '@octokit/webhooks-methods';
import { launchChromium, openPage } from '../helpers/browser';
import { sharedTestStack, type TestMerchant, type TestStack } from '../helpers/stack';
import { startReceiver } from '../helpers/receiver';
import { randomBase62 } from '../../domain/ids';
import { checkoutClaimDates } from '../../domain/checkout-claims';
import type { ClaimRow } from '../../db/claims';

/**
 * Claims in checkout (decision 0063) in headless Chromium: the buyer chooses
 * "pay with a krafa" with a kennitala, the session completes `awaiting_claim` and the claim is
 * issued at the simulated bank; the payer pays it in the online bank, one claim payments sync makes
 * the session `paid`, and `claim.created`, `claim.paid` and `payment_intent.captured` arrive signed.
 * A cancelled claim leaves its session `unpaid`.
 */

const CLAIMANT = '5510730339';
const PAYER = '1201603389';

let stack: TestStack;
let browser: Browser;
let m: TestMerchant;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let secret: string;

beforeAll(async () => {
  [stack, browser, receiver] = await Promise.all([sharedTestStack(), launchChromium(), startReceiver()]);
  m = await stack.merchant('Kröfubúðin ehf.');
  await stack.knex('merchants').where({ id: m.id }).update({ kennitala: CLAIMANT });
  const channel = await api('/v1/notification-channels', {
    type: 'webhook',
    config: { url: receiver.url },
    event_subscriptions: ['claim.created', 'claim.paid', 'payment_intent.captured'],
  });
  expect(channel.status).toBe(200);
  secret = channel.body.config.secret;
});
afterAll(async () => {
  await browser?.close();
  await receiver?.close();
  await stack?.stop();
});

function api(p: string, json?: unknown) {
  return stack.api(m.testKey, p, json === undefined ? {} : { method: 'POST', json });
}

async function createSession(locale: 'is' | 'en') {
  const r = await api('/v1/checkout/sessions', {
    amount: 4900,
    locale,
    form_fields: [{ name: 'name', type: 'text', required: true }],
  });
  expect(r.status).toBe(200);
  expect(r.body).toMatchObject({ status: 'open', payment_status: 'unpaid' });
  return r.body as { id: string; url: string };
}

const claimOf = async (sessionId: string) =>
  (await stack.knex<ClaimRow>('claims').where({ checkout_session_id: sessionId }).first())!;

/** Waits until the claim batch started at checkout has issued the session's claim. */
async function issued(sessionId: string): Promise<ClaimRow> {
  for (let i = 0; i < 200; i++) {
    const c = await claimOf(sessionId);
    if (c?.status === 'issued') return c;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the claim was not issued');
}

const runSync = () =>
  stack.client.workflow.execute('claimPaymentsSync', {
    workflowId: `claim-payments-sync/test/${randomBase62(6)}`,
    taskQueue: stack.taskQueue,
    args: [{}],
  });

test('pay with a krafa in checkout, pay it in the online bank: one sync makes the session paid; signed webhooks', async () => {
  const s = await createSession('is');
  const shop = await openPage(browser, stack.url);
  try {
    await shop.page.goto(s.url);
    await shop.page.getByLabel('Nafn *').fill('Guðrún Pálsdóttir');
    await shop.page.locator('#claim-kennitala').fill('120160-3389');
    await shop.page.getByRole('button', { name: 'Fá kröfu í netbanka' }).click();
    const status = shop.page.getByTestId('status');
    await status.waitFor();
    expect(await status.getAttribute('data-payment-status')).toBe('awaiting_claim');
    expect(await status.innerText()).toContain('Krafa hefur verið send');
    expect(shop.errors).toEqual([]);
  } finally {
    await shop.context.close();
  }

  const waiting = (await api(`/v1/checkout/sessions/${s.id}`)).body;
  expect(waiting).toMatchObject({
    status: 'complete',
    payment_status: 'awaiting_claim',
    customer_name: 'Guðrún Pálsdóttir',
    payment_intent: null,
  });
  // The claim: the session's amount, from the payer's kennitala, due per the checkout default.
  const claim = await issued(s.id);
  const terms = checkoutClaimDates(new Date().toISOString().slice(0, 10));
  expect(claim).toMatchObject({
    payer_kennitala: PAYER,
    claimant_kennitala: CLAIMANT,
    amount: 4900,
    payment_intent_id: null,
    due_date: terms.dueDate,
    final_due_date: terms.finalDueDate,
    cancellation_date: terms.cancellationDate,
  });
  expect(stack.bank!.bank.ledger.find(claim.bank_claim_id)).toBeDefined();

  // The payer opens the simulated online bank and pays the krafa in full.
  const bank = await openPage(browser, stack.bank!.bank.url);
  try {
    await bank.page.goto(stack.bank!.bank.payerUrl);
    await bank.page.getByLabel('Kennitala').fill(PAYER);
    await Promise.all([
      bank.page.waitForURL(/\/bank\/payor/),
      bank.page.getByRole('button', { name: 'Sýna kröfur' }).click(),
    ]);
    const row = bank.page.locator(`tr[data-claim-id="${claim.bank_claim_id}"]`);
    expect(await row.locator('[data-amount-due]').innerText()).toBe('4.900 kr.');
    await Promise.all([
      bank.page.waitForURL(/paid=1/),
      row.getByRole('button', { name: `Greiða ${claim.bank_claim_id}` }).click(),
    ]);
    expect(bank.errors).toEqual([]);
  } finally {
    await bank.context.close();
  }

  expect(await runSync()).toMatchObject({ applied: 1 });
  const paid = (await api(`/v1/checkout/sessions/${s.id}`)).body;
  expect(paid).toMatchObject({ status: 'complete', payment_status: 'paid' });
  const paidClaim = (await api(`/v1/claims/${claim.id}`)).body;
  expect(paidClaim).toMatchObject({ status: 'paid', amount_paid: 4900, payment_intent: paid.payment_intent });
  // One payment intent for the claim, captured with the claim fee (0.8 % of 4 900 = 39).
  const intent = (await api(`/v1/payment-intents/${paid.payment_intent}`)).body;
  expect(intent).toMatchObject({ status: 'succeeded', amount_received: 4900, fee_amount: 39 });
  expect(await stack.knex('payment_intents').whereRaw("metadata->>'claim' = ?", [claim.id])).toHaveLength(1);

  // The page now says paid.
  const after = await openPage(browser, stack.url);
  try {
    await after.page.goto(s.url);
    expect(await after.page.getByTestId('status').getAttribute('data-payment-status')).toBe('paid');
  } finally {
    await after.context.close();
  }

  // The three webhooks, each signed.
  const deadline = Date.now() + 20_000;
  const mine = () =>
    receiver.received.filter(
      (r) => r.body?.data?.id === claim.id || r.body?.data?.id === paid.payment_intent,
    );
  while (mine().length < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  expect(
    mine()
      .map((r) => r.body.type)
      .sort(),
  ).toEqual(['claim.created', 'claim.paid', 'payment_intent.captured']);
  for (const r of mine())
    expect(await verify(secret, r.rawBody.toString('utf8'), String(r.headers['x-service-signature']))).toBe(
      true,
    );
  expect(stack.bank!.problems()).toEqual([]);
});

test('a bad kennitala is refused on the page; a cancelled claim leaves the session unpaid', async () => {
  const s = await createSession('en');
  const post = (form: Record<string, string>) =>
    fetch(s.url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form).toString(),
    });
  const bad = await post({ action: 'claim', f_name: 'Jón', claim_kennitala: '1234567890' });
  expect(bad.status).toBe(402);
  expect(await bad.text()).toContain('Not a valid kennitala');
  expect((await api(`/v1/checkout/sessions/${s.id}`)).body.status).toBe('open');

  const ok = await post({ action: 'claim', f_name: 'Jón', claim_kennitala: PAYER });
  expect(ok.status).toBe(200);
  expect(await ok.text()).toContain('data-payment-status="awaiting_claim"');
  const claim = await issued(s.id);

  const cancelled = await api(`/v1/claims/${claim.id}/cancel`, {});
  expect(cancelled.body.status).toBe('cancelled');
  expect(stack.bank!.bank.ledger.find(claim.bank_claim_id)!.claimStatus).toBe('Cancelled');
  const unpaid = (await api(`/v1/checkout/sessions/${s.id}`)).body;
  expect(unpaid).toMatchObject({ status: 'complete', payment_status: 'unpaid', payment_intent: null });
  // A sync afterwards changes nothing.
  expect(await runSync()).toMatchObject({ applied: 0 });
  expect((await api(`/v1/checkout/sessions/${s.id}`)).body.payment_status).toBe('unpaid');
  const page = await (await fetch(s.url)).text();
  expect(page).toContain('data-payment-status="unpaid"');
});
