import type { TestMerchant, TestStack } from './stack';

/**
 * The operator runs a settlement day for `date` (test mode unless `livemode`); returns the
 * merchant's run of it with its lines, read through the merchant's own API key of that mode.
 */
export async function settleDay(
  stack: TestStack,
  operatorToken: string,
  m: TestMerchant,
  date: string,
  livemode = false,
) {
  const day = await stack.api(operatorToken, '/v1/operator/settlement-days', {
    method: 'POST',
    json: { date, livemode },
  });
  expect(day.status).toBe(200);
  const run = (day.body.runs as { id: string; merchant: string }[]).find((r) => r.merchant === m.id);
  expect(run).toBeDefined();
  const key = livemode ? m.liveKey : m.testKey;
  const got = await stack.api(key, `/v1/settlement-runs/${run!.id}`);
  const lines = await stack.api(key, `/v1/settlement-runs/${run!.id}/lines?limit=100`);
  expect(lines.status).toBe(200);
  return { run: got.body, lines: lines.body.data as Record<string, any>[] };
}
