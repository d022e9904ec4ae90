import { createOperator } from '../helpers/accounts';
import { startTestStack, type TestMerchant, type TestStack } from '../helpers/stack';
import { nextBankingDay } from '../../domain/banking-days';

/**
 * Two deployments on one Temporal namespace (decision 0191): here two stacks, each with its own
 * database and task queue on the run's Temporal server, as the test files are. Each operator runs
 * the same settlement day at the same moment, several days over; each must open its own merchant's
 * run from its own database, never join the other deployment's workflow and come back empty.
 */

jest.setTimeout(120_000);

const DAYS = 4;
const DAY = 86_400_000;

interface Deployment {
  stack: TestStack;
  merchant: TestMerchant;
  operatorToken: string;
}

const deployments: Deployment[] = [];

beforeAll(async () => {
  for (const name of ['Fyrri ehf.', 'Seinni ehf.']) {
    const stack = await startTestStack();
    const merchant = await stack.merchant(name);
    const profile = await stack.api(merchant.testKey, '/v1/merchant', {
      method: 'PATCH',
      json: { kennitala: '5510730339', bank_account: '0111-26-123456' },
    });
    expect(profile.status).toBe(200);
    deployments.push({ stack, merchant, operatorToken: (await createOperator(stack.knex)).token });
  }
});
afterAll(async () => {
  await Promise.all(deployments.map((d) => d.stack.stop()));
});

async function pay(d: Deployment, amount: number): Promise<void> {
  const paid = await d.stack.api(d.merchant.testKey, '/v1/payment-intents', {
    method: 'POST',
    json: {
      amount,
      card: { number: '4242424242424242', exp_month: 12, exp_year: 2034, cvc: '123' },
      confirm: true,
    },
  });
  expect(paid.body.status).toBe('succeeded');
}

test('the same settlement day run at once in two deployments opens each one’s own run', async () => {
  // Days far enough ahead that no other test file runs them.
  let date = nextBankingDay(new Date(Date.now() + 400 * DAY).toISOString().slice(0, 10));
  for (let i = 0; i < DAYS; i++) {
    const amounts = [10_000 + i, 20_000 + i];
    await Promise.all(deployments.map((d, k) => pay(d, amounts[k]!)));
    const days = await Promise.all(
      deployments.map((d) =>
        d.stack.api(d.operatorToken, '/v1/operator/settlement-days', {
          method: 'POST',
          json: { date, livemode: false },
        }),
      ),
    );
    days.forEach((day, k) => {
      expect(day.status).toBe(200);
      expect(day.body.settlement_date).toBe(date);
      const runs = day.body.runs as { merchant: string; gross: number }[];
      expect(runs.map((r) => [r.merchant, r.gross])).toEqual([[deployments[k]!.merchant.id, amounts[k]]]);
    });
    date = nextBankingDay(new Date(Date.parse(`${date}T00:00:00Z`) + DAY).toISOString().slice(0, 10));
  }
});
