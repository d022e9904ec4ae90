import { startTestStack, type TestMerchant, type TestStack } from '../helpers/stack';
import { createOperator } from '../helpers/accounts';

/**
 * What `POST /v1/claims` accepts, through the real API (issue 15 items 6 and 7): in live mode only a
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
