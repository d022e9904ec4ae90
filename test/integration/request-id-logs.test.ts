/**
 * One request's id in the logs of the API, the workflow it starts and that workflow's activities
 * (decision 0178), read from the real processes' standard output as an operator's log collector
 * would: the API answers with `Request-Id`, the Temporal client interceptor sends it in the
 * workflow's headers, the workflow interceptor logs it (the SDK's logger sink into the worker's
 * pino logger) and passes it to the activities, whose log lines carry it too.
 */
import type { ChildProcess } from 'node:child_process';
import { startTestStack, type TestStack } from '../helpers/stack';
import { spawnApi, type ApiProcess } from '../helpers/api-process';
import { killHard, spawnWorker } from '../helpers/worker-process';
import { until } from '../helpers/until';

type LogLine = Record<string, unknown> & { msg?: string; requestId?: string };

let stack: TestStack;
let api: ApiProcess;
let worker: ChildProcess;
const apiLines: LogLine[] = [];
const workerLines: LogLine[] = [];

/** Collects the JSON lines a process writes on stdout (a chunk may end mid-line). */
function collect(child: ChildProcess, into: LogLine[]): void {
  let rest = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    const lines = (rest + chunk.toString()).split('\n');
    rest = lines.pop() ?? '';
    for (const line of lines) {
      if (!line.startsWith('{')) continue;
      try {
        into.push(JSON.parse(line) as LogLine);
      } catch {
        // Not a log line.
      }
    }
  });
}

beforeAll(async () => {
  stack = await startTestStack({ worker: false });
  [api, worker] = await Promise.all([
    spawnApi(stack, { LOG_LEVEL: 'info' }),
    spawnWorker(stack, { extraEnv: { LOG_LEVEL: 'debug' } }),
  ]);
  collect(api.child, apiLines);
  collect(worker, workerLines);
}, 120_000);

afterAll(async () => {
  if (worker) await killHard(worker);
  await api?.stop();
  await stack?.stop();
});

test("the request id of a subscription's creation is in the API's, the workflow's and the activities' logs", async () => {
  const merchant = await stack.merchant();
  const call = async (p: string, json?: unknown) => {
    const res = await fetch(`${api.url}${p}`, {
      method: json === undefined ? 'GET' : 'POST',
      headers: { authorization: `Bearer ${merchant.testKey}`, 'content-type': 'application/json' },
      ...(json !== undefined && { body: JSON.stringify(json) }),
    });
    return {
      status: res.status,
      requestId: res.headers.get('request-id'),
      body: (await res.json()) as Record<string, unknown>,
    };
  };
  const customer = await call('/v1/customers', { name: 'Jón' });
  const card = await call('/v1/payment-methods', {
    customer: customer.body.id,
    card: { number: '4242424242424242', exp_month: 12, exp_year: 2040, cvc: '123' },
  });
  const product = await call('/v1/products', { name: 'Áskrift', vat_rate: 24 });
  const price = await call('/v1/prices', {
    product: product.body.id,
    unit_amount: 1990,
    recurring: { interval: 'month' },
  });
  const sub = await call('/v1/subscriptions', {
    customer: customer.body.id,
    price: price.body.id,
    default_payment_method: card.body.id,
  });
  expect(sub.status).toBe(200);
  const requestId = sub.requestId!;
  expect(requestId).toMatch(/^req_/);
  await until(
    () => call(`/v1/subscriptions/${String(sub.body.id)}`),
    (r) => r.body.status === 'active',
    30_000,
  );

  // The API's line for the request.
  const apiLine = await until(
    () => Promise.resolve(apiLines.find((l) => l.requestId === requestId && l.msg === 'request')),
    (l) => l !== undefined,
    10_000,
  );
  expect(apiLine).toMatchObject({ method: 'POST', route: '/v1/subscriptions', status: 200 });

  // The workflow's line, through the SDK's logger sink, with the workflow's own attributes.
  const ofRequest = () => workerLines.filter((l) => l.requestId === requestId);
  await until(
    () => Promise.resolve(ofRequest()),
    (lines) => lines.some((l) => l.activityType !== undefined && l.msg === 'Activity completed'),
    20_000,
  );
  const workflowLine = ofRequest().find((l) => l.msg === 'request reached the workflow');
  expect(workflowLine).toMatchObject({
    workflowType: 'subscriptionLifecycle',
    workflowId: `subscription/${String(sub.body.id)}`,
  });
  // The activities it ran for the request, through the SDK's activity logger.
  const activityLines = ofRequest().filter((l) => l.activityType !== undefined);
  expect(activityLines.length).toBeGreaterThan(0);
  expect(activityLines.every((l) => l.workflowId === `subscription/${String(sub.body.id)}`)).toBe(true);

  // Other requests' ids never reach the worker: the reads started no workflow.
  const otherIds = new Set(
    apiLines.filter((l) => l.msg === 'request' && l.requestId !== requestId).map((l) => l.requestId),
  );
  expect(otherIds.size).toBeGreaterThan(3);
  expect(workerLines.filter((l) => otherIds.has(l.requestId))).toEqual([]);
}, 60_000);
