/**
 * The ledger invariant (decision 0107) over money moved through the real API: card payments, refunds
 * and a settlement run, and a subscription's first charge. It holds; deleting one settlement line, one
 * settled refund, one unsettled refund, or charging a subscription outside its periods each breaks it.
 * Its extension for the costs added on top (decision 0113): recorded costs = costs the runs were
 * gathered with + costs on no line; deleting a cost line, or changing or deleting a settled cost,
 * breaks it.
 * Each break is made inside a transaction that is rolled back, so the check the stack runs when this
 * file ends sees the ledger whole again.
 */
import { startTestStack, type TestMerchant, type TestStack } from '../helpers/stack';
import { createOperator } from '../helpers/accounts';
import { until } from '../helpers/until';
import { checkLedger, ledgerWith, type LedgerReport } from '../helpers/ledger-invariant';

let stack: TestStack;
let m: TestMerchant;

beforeAll(async () => {
  stack = await startTestStack({ realBaseUrl: true });
  m = await stack.merchant('Bókhald ehf.');
});
afterAll(async () => {
  await stack?.stop();
});

const post = (path: string, json: unknown) => stack.api(m.testKey, path, { method: 'POST', json });
const card = { number: '4242424242424242', exp_month: 12, exp_year: 2034, cvc: '123' };

async function pay(amount: number): Promise<string> {
  const r = await post('/v1/payment-intents', { amount, card, confirm: true });
  expect([r.status, r.body.status]).toEqual([200, 'succeeded']);
  return r.body.id as string;
}

async function refund(paymentIntent: string, amount: number): Promise<string> {
  const r = await post('/v1/refunds', { payment_intent: paymentIntent, amount });
  expect([r.status, r.body.status]).toEqual([200, 'succeeded']);
  return r.body.id as string;
}

const mine = (r: LedgerReport) => r.figures.find((f) => f.merchantId === m.id && !f.livemode);

let first: string;
let settledRefund: string;
let unsettledRefund: string;

test('payments, refunds and a settlement run through the API: the ledger balances', async () => {
  first = await pay(10_000);
  const second = await pay(5_000);
  await pay(2_000);
  settledRefund = await refund(first, 1_000);

  const operator = await createOperator(stack.knex);
  const day = await stack.api(operator.token, '/v1/operator/settlement-days', { method: 'POST', json: {} });
  expect(day.status).toBe(200);
  const run = (day.body.runs as { id: string; merchant: string; gross: number }[]).find(
    (r) => r.merchant === m.id,
  );
  // Three payments, a refund and each payment's acquirer fee (0.3 % + 4 ISK: 34, 19 and 10).
  expect(run).toMatchObject({ gross: 16_000, line_count: 7 });

  // After the run: money that waits for the next one.
  await pay(3_000);
  unsettledRefund = await refund(second, 500);

  const report = await checkLedger(stack.knex);
  expect(report.violations).toEqual([]);
  expect(mine(report)).toEqual({
    merchantId: m.id,
    livemode: false,
    movements: { captured: 20_000, refunded: -1_500, reversed: 0, disputed: 0, 'dispute won': 0 },
    left: 18_500,
    settledGross: 16_000,
    unsettled: 2_500,
    // The 3,000 payment's acquirer fee (9 + 4) waits with it.
    costs: 76,
    settledCosts: 63,
    unsettledCosts: 13,
  });
});

test('a deleted cost line breaks it, and so does a settled cost changed or deleted', async () => {
  const line = await ledgerWith(stack.knex, (trx) =>
    trx('settlement_lines').where({ kind: 'acquirer_fee', payment_intent_id: first }).delete(),
  );
  // The fee now looks unsettled while its run still deducted it.
  expect(mine(line)).toMatchObject({ costs: 76, settledCosts: 63, unsettledCosts: 47 });
  expect(line.violations).toEqual(
    expect.arrayContaining([
      `costs ${m.id}/test: recorded 76 ≠ settled 63 + unsettled 47 = 110`,
      expect.stringMatching(/^settlement run stl_\w+: acquirer fee\/bank cost 63\/0 ≠ its lines' 29\/0$/),
    ]),
  );

  const changed = await ledgerWith(stack.knex, (trx) =>
    trx('payment_costs').where({ kind: 'acquirer_fee', payment_intent_id: first }).increment('amount', 1),
  );
  expect(changed.violations).toEqual(
    expect.arrayContaining([
      `costs ${m.id}/test: recorded 77 ≠ settled 63 + unsettled 13 = 76`,
      expect.stringMatching(
        /^settlement line \d+ \(acquirer_fee auth_\w+\) matches no recorded cost of that amount$/,
      ),
    ]),
  );

  const deleted = await ledgerWith(stack.knex, (trx) =>
    trx('payment_costs').where({ kind: 'acquirer_fee', payment_intent_id: first }).delete(),
  );
  expect(deleted.violations).toEqual(
    expect.arrayContaining([
      `costs ${m.id}/test: recorded 42 ≠ settled 63 + unsettled 13 = 76`,
      expect.stringMatching(
        /^settlement line \d+ \(acquirer_fee auth_\w+\) matches no recorded cost of that amount$/,
      ),
    ]),
  );
});

test('a deleted settlement line breaks it: its payment would be settled a second time', async () => {
  const report = await ledgerWith(stack.knex, (trx) =>
    trx('settlement_lines').where({ kind: 'payment', source_id: first }).delete(),
  );
  // The payment now looks unsettled while its run still holds it.
  expect(mine(report)).toMatchObject({ left: 18_500, settledGross: 16_000, unsettled: 12_500 });
  expect(report.violations).toEqual(
    expect.arrayContaining([
      expect.stringMatching(new RegExp(`^ledger ${m.id}/test: movements 18500 .* = 28500$`)),
      expect.stringMatching(/^settlement run stl_\w+: gross\/fee\/net\/lines 16000\/.*≠ its lines' 6000\//),
    ]),
  );
});

test('a deleted settled refund breaks it, and so does a deleted unsettled one', async () => {
  const settled = await ledgerWith(stack.knex, (trx) => trx('refunds').where({ id: settledRefund }).delete());
  expect(mine(settled)).toMatchObject({ left: 19_500, settledGross: 16_000, unsettled: 2_500 });
  expect(settled.violations).toEqual(
    expect.arrayContaining([
      expect.stringMatching(new RegExp(`^ledger ${m.id}/test: movements 19500 .* = 18500$`)),
      expect.stringMatching(/^settlement line \d+ \(refund re_\w+\) matches no movement/),
      `payment intent ${first}: amount_refunded 1000 ≠ its succeeded and pending refunds 0`,
    ]),
  );

  // Not yet settled, it leaves both sides of the equation alike; the intent's refunded total sees it.
  const unsettled = await ledgerWith(stack.knex, (trx) =>
    trx('refunds').where({ id: unsettledRefund }).delete(),
  );
  expect(unsettled.violations).toEqual([
    expect.stringMatching(/^payment intent pi_\w+: amount_refunded 500 ≠/),
  ]);
});

test('a subscription charged outside its periods breaks it', async () => {
  const product = await post('/v1/products', { name: 'Áskrift', vat_rate: 24 });
  const price = await post('/v1/prices', {
    product: product.body.id,
    unit_amount: 2_990,
    recurring: { interval: 'month' },
  });
  const customer = await post('/v1/customers', { name: 'Jón' });
  const pm = (await post('/v1/payment-methods', { card, customer: customer.body.id })).body.id as string;
  const created = await post('/v1/subscriptions', {
    customer: customer.body.id,
    price: price.body.id,
    default_payment_method: pm,
  });
  expect(created.status).toBe(200);
  const sub = created.body.id as string;
  await until(
    () => stack.api(m.testKey, `/v1/subscriptions/${sub}`),
    (r) => r.body.status === 'active',
  );
  expect((await checkLedger(stack.knex)).violations).toEqual([]);

  // A second captured charge tied to the subscription that pays none of its periods.
  const extra = await pay(2_990);
  const report = await ledgerWith(stack.knex, (trx) =>
    trx('payment_intents').where({ id: extra }).update({ subscription_id: sub }),
  );
  expect(report.violations).toEqual([
    `subscription ${sub}: payment intent ${extra} was captured for no period of it`,
  ]);
});
