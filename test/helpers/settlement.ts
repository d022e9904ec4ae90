import type { TestMerchant, TestStack } from './stack';

/**
 * The operator runs a test-mode settlement day for `date`; returns the merchant's run of it with its
 * lines, read through the merchant's own API key.
 */
export async function settleDay(stack: TestStack, operatorToken: string, m: TestMerchant, date: string) {
  const day = await stack.api(operatorToken, '/v1/operator/settlement-days', {
    method: 'POST',
    json: { date, livemode: false },
  });
  expect(day.status).toBe(200);
  const run = (day.body.runs as { id: string; merchant: string }[]).find((r) => r.merchant === m.id);
  expect(run).toBeDefined();
  const got = await stack.api(m.testKey, `/v1/settlement-runs/${run!.id}`);
  const lines = await stack.api(m.testKey, `/v1/settlement-runs/${run!.id}/lines?limit=100`);
  expect(lines.status).toBe(200);
  return { run: got.body, lines: lines.body.data as Record<string, any>[] };
}
