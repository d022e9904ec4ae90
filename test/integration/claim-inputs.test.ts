import { startTestStack, type TestMerchant, type TestStack } from '../helpers/stack';
import { createOperator } from '../helpers/accounts';
import { nextBankingDay } from '../../domain/banking-days';

/**
 * What `POST /v1/claims` accepts, through the real API (decision 0104): in live mode only a
 * merchant with `payments.bank_claim` enabled may create claims, and a refused request changes
 * nothing.
 */

const PAYER = '1201603389';

let stack: TestStack;
let m: TestMerchant;

beforeAll(async () => {
  stack = await startTestStack({ worker: false });
  m = await stack.merchant('Kröfur ehf.');
  await stack.knex('merchants').where({ id: m.id }).update({ kennitala: '5510730339' });
});
afterAll(async () => {
  await stack?.stop();
});

const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
const createWith = (key: string, json: Record<string, unknown>) =>
  stack.api(key, '/v1/claims', { method: 'POST', json });
const countClaims = async (merchantId: string, livemode: boolean) =>
  Number((await stack.knex('claims').where({ merchant_id: merchantId, livemode }).count('* as n'))[0]!.n);

test('live mode: 400 claims_not_enabled until the claims agreement is signed; test mode meanwhile works', async () => {
  const operator = await createOperator(stack.knex);
  const op = (path: string) => stack.api(operator.token, `/v1/operator${path}`, { method: 'POST', json: {} });
  const live = await stack.merchant('Lifandi ehf.');
  const profile = await stack.api(live.testKey, '/v1/merchant', {
    method: 'PATCH',
    json: {
      merchant_type: 'company',
      kennitala: '4710080280',
      phone: '+354 410 4000',
      business_description: 'Wool',
      bank_account: '0133-26-012345',
    },
  });
  expect(profile.status).toBe(200);
  const body = { payer_kennitala: PAYER, amount: 2_500, due_date: day(20) };
  const expectRefused = async () => {
    const res = await createWith(live.liveKey, body);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ type: 'invalid_request_error', code: 'claims_not_enabled' });
    expect(await countClaims(live.id, true)).toBe(0);
  };

  // Not yet submitted, in review, then approved without the claims agreement: refused each time.
  await expectRefused();
  expect((await stack.api(live.testKey, '/v1/merchant/submit', { method: 'POST' })).status).toBe(200);
  await expectRefused();
  expect((await op(`/merchants/${live.id}/approve`)).status).toBe(200);
  await expectRefused();
  expect((await stack.api(live.liveKey, '/v1/claims')).body.data).toEqual([]);

  // Test mode has the simulated bank from sign-up.
  const inTest = await createWith(live.testKey, body);
  expect(inTest.status).toBe(200);
  expect(inTest.body).toMatchObject({ livemode: false, status: 'pending' });

  // Once signed, live claims are created.
  expect((await op(`/merchants/${live.id}/claims-agreement/sign`)).status).toBe(200);
  const created = await createWith(live.liveKey, body);
  expect(created.status).toBe(200);
  expect(created.body).toMatchObject({ livemode: true, status: 'pending', amount: 2_500 });
  expect(await countClaims(live.id, true)).toBe(1);
});

describe('claim inputs are bounded (decision 0104)', () => {
  const plusYears = (date: string, years: number) => `${Number(date.slice(0, 4)) + years}${date.slice(4)}`;
  const due = day(10);
  const base = { payer_kennitala: PAYER, amount: 1_500, due_date: due };
  const tier = (type: 'amount' | 'percentage', value: number, days = 5) => ({ type, days, value });
  const create = (json: Record<string, unknown>) => createWith(m.testKey, json);

  /** Each bad input: a 400 in the error envelope naming the parameter, and no claim stored. */
  const bad: [string, Record<string, unknown>, string][] = [
    ['due date in the past', { due_date: day(-1) }, 'due_date'],
    ['due date 9999-12-31', { due_date: '9999-12-31' }, 'due_date'],
    ['due date more than 4 years ahead', { due_date: day(4 * 366 + 2) }, 'due_date'],
    ['final due date 9999-12-31', { final_due_date: '9999-12-31' }, 'final_due_date'],
    ['final due date beyond 4 years', { final_due_date: plusYears(day(20), 4) }, 'final_due_date'],
    ['final due date before the due date', { final_due_date: day(5) }, 'final_due_date'],
    ['cancellation date 9999-12-31', { cancellation_date: '9999-12-31' }, 'cancellation_date'],
    ['cancellation date before the final due date', { final_due_date: day(30), cancellation_date: day(20) }, 'cancellation_date'],
    ['notice fee 999,999,999,999 on 1,500', { notice_fee: 999_999_999_999 }, 'notice_fee'],
    ['notice fee above 950', { notice_fee: 951 }, 'notice_fee'],
    ['notice fee not whole', { notice_fee: 12.5 }, 'notice_fee'],
    ['default charge of 1e308 ISK', { default_charges: { first: tier('amount', 1e308) } }, 'default_charges.first.value'],
    ['default charge above 950', { default_charges: { first: tier('amount', 951) } }, 'default_charges.first.value'],
    ['second default charge above 950', { default_charges: { first: tier('amount', 500), second: tier('amount', 2_000, 20) } }, 'default_charges.second.value'],
    ['percentage default charge coming to 10,000', { amount: 100_000, default_charges: { first: tier('percentage', 10) } }, 'default_charges.first.value'],
    ['default charge above 100 %', { default_charges: { first: tier('percentage', 101) } }, 'default_charges.first.value'],
    ['default charge not whole ISK', { default_charges: { first: tier('amount', 500.5) } }, 'default_charges.first.value'],
    ['default charge negative', { default_charges: { first: tier('amount', -1) } }, 'default_charges.first.value'],
    ['default charge tier 100 days', { default_charges: { first: tier('amount', 500, 100) } }, 'default_charges.first.days'],
    ['discount of 0.5 ISK', { discount: { first: tier('amount', 0.5) } }, 'discount.first.value'],
    ['discount above the claim', { discount: { first: tier('amount', 1_501) } }, 'discount.first.value'],
    ['100 % discount of claim and notice fee', { notice_fee: 200, discount: { first: tier('percentage', 100) } }, 'discount.first.value'],
    ['discount above 100 %', { discount: { first: tier('percentage', 100.5) } }, 'discount.first.value'],
    ['discount percentage with 3 decimals', { discount: { first: tier('percentage', 1.125) } }, 'discount.first.value'],
    ['discount tier at -1 days', { discount: { first: tier('amount', 100), second: tier('amount', 50, -1) } }, 'discount.second.days'],
    ['amount not whole', { amount: 1_500.5 }, 'amount'],
    ['interest above 100 %', { default_interest: { percentage: 101 } }, 'default_interest.percentage'],
  ]; // prettier-ignore

  test.each(bad)('%s → 400 naming the parameter; nothing stored', async (_name, over, param) => {
    const before = await countClaims(m.id, false);
    const res = await create({ ...base, ...over });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ type: 'invalid_request_error', param });
    expect(typeof res.body.error.message).toBe('string');
    expect(await countClaims(m.id, false)).toBe(before);
  });

  test('inputs at the limits are accepted', async () => {
    let edge = due;
    while (nextBankingDay(edge) !== edge || nextBankingDay(plusYears(edge, 4)) !== plusYears(edge, 4))
      edge = new Date(Date.parse(`${edge}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
    for (const over of [
      { due_date: day(0) },
      { due_date: day(4 * 365 - 2) },
      // A banking day whose date four years on is one too, so no shift moves either date.
      { due_date: edge, final_due_date: plusYears(edge, 4), cancellation_date: plusYears(edge, 4) },
      { notice_fee: 950, default_charges: { first: tier('amount', 950), second: tier('amount', 950, 30) } },
      { amount: 100_000, default_charges: { first: tier('percentage', 0.95, 99) } },
      { discount: { first: tier('amount', 1_500) } },
      { notice_fee: 100, discount: { first: tier('percentage', 93.75, 0) } },
    ]) {
      const res = await create({ ...base, ...over });
      expect({ over, status: res.status, error: res.body.error }).toMatchObject({ status: 200 });
    }
  });

  test('amendments are bounded the same way and a refused one changes nothing', async () => {
    const made = await create({ ...base, discount: { first: tier('amount', 1_000) } });
    expect(made.status).toBe(200);
    const path = `/v1/claims/${made.body.id}`;
    for (const [json, param] of [
      [{ notice_fee: 999_999_999_999 }, 'notice_fee'],
      [{ notice_fee: 951 }, 'notice_fee'],
      [{ amount: 900 }, 'amount'],
      [{ final_due_date: '9999-12-31' }, 'final_due_date'],
      [{ cancellation_date: '9999-12-31' }, 'cancellation_date'],
    ] as const) {
      const res = await stack.api(m.testKey, path, { method: 'POST', json });
      expect({ json, status: res.status, param: res.body.error?.param }).toEqual({
        json,
        status: 400,
        param,
      });
    }
    expect((await stack.api(m.testKey, path)).body).toEqual(made.body);
  });
});
