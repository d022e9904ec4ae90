/**
 * The worker's Prometheus metrics (decision 0146), scraped over HTTP from the real worker
 * process: a subscription's first charge and renewal count as renewals and card charges, webhook
 * attempts count by result with their latencies, and a receiver that keeps failing shows as backlog.
 */
import type { ChildProcess } from 'node:child_process';
import { freePort } from '../../stack/free-port';
import { startTestStack, type TestStack } from '../helpers/stack';
import { startReceiver } from '../helpers/receiver';
import { killHard, spawnWorker } from '../helpers/worker-process';
import { until } from '../helpers/until';

let stack: TestStack;
let worker: ChildProcess | undefined;
let metricsUrl: string;

beforeAll(async () => {
  stack = await startTestStack({ worker: false, realBaseUrl: true });
  const port = await freePort();
  metricsUrl = `http://127.0.0.1:${port}/metrics`;
  worker = await spawnWorker(stack, { extraEnv: { WORKER_METRICS_PORT: String(port), HOST: '127.0.0.1' } });
}, 120_000);
afterAll(async () => {
  if (worker) await killHard(worker);
  await stack?.stop();
});

/** One sample's value from the exposition text, 0 when absent. */
async function sample(name: string, labels: Record<string, string> = {}): Promise<number> {
  const text = await (await fetch(metricsUrl)).text();
  const want = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split('\n')) {
    const m = /^([a-z_]+)(?:\{([^}]*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = (m[2] ?? '').split(',').filter(Boolean);
    if (want.every((w) => have.includes(w))) return Number(m[3]);
  }
  return 0;
}

test('charges, renewals and webhooks are counted; a failing receiver shows as backlog', async () => {
  expect((await fetch(metricsUrl.replace('/metrics', '/other'))).status).toBe(404);
  expect(await sample('skil_card_charges_total', { outcome: 'paid' })).toBe(0);

  const good = await startReceiver();
  const failing = await startReceiver(() => 500);
  try {
    const merchant = await stack.merchant();
    const api = (path: string, json?: unknown) =>
      stack.api(merchant.testKey, path, json === undefined ? undefined : { method: 'POST', json });
    for (const url of [good.url, failing.url])
      expect(
        (
          await api('/v1/notification-channels', {
            type: 'webhook',
            config: { url },
            event_subscriptions: ['*'],
          })
        ).status,
      ).toBe(200);
    const customer = await api('/v1/customers', { name: 'Metra' });
    const card = await api('/v1/payment-methods', {
      customer: customer.body.id,
      card: { number: '4242424242424242', exp_month: 12, exp_year: 2040, cvc: '123' },
    });
    const product = await api('/v1/products', { name: 'Áskrift', vat_rate: 24 });
    const price = await api('/v1/prices', {
      product: product.body.id,
      unit_amount: 990,
      recurring: { interval: 'month' },
    });
    const sub = await api('/v1/subscriptions', {
      customer: customer.body.id,
      price: price.body.id,
      default_payment_method: card.body.id,
    });
    expect(sub.status).toBe(200);
    await until(
      () => api(`/v1/subscriptions/${sub.body.id}`),
      (r) => r.body.status === 'active',
      60_000,
    );
    await good.waitFor(1, 30_000);
    await until(
      () => sample('skil_webhook_attempts_total', { result: 'failed' }),
      (n) => n >= 1,
      30_000,
    );

    expect(await sample('skil_card_charges_total', { outcome: 'paid' })).toBeGreaterThanOrEqual(1);
    expect(
      (await sample('skil_renewals_total', { outcome: 'paid' })) +
        (await sample('skil_renewals_total', { outcome: 'void' })),
    ).toBeGreaterThanOrEqual(1);
    await until(
      () => sample('skil_webhook_attempts_total', { result: 'succeeded' }),
      (n) => n >= good.received.length,
      10_000,
    );
    expect(await sample('skil_webhook_delivery_latency_seconds_count')).toBeGreaterThanOrEqual(1);
    expect(await sample('skil_webhook_attempt_seconds_count')).toBeGreaterThanOrEqual(2);
    // The failing channel's deliveries wait for their retries (the first a minute away): backlog.
    // Polled, not read once: the worker reads the backlog at most once a second, so a scrape within
    // a second of the test's first one (a fast machine gets this far in less) still shows that read.
    expect(
      await until(
        () => sample('skil_webhook_backlog'),
        (n) => n >= 1,
        10_000,
      ),
    ).toBeGreaterThanOrEqual(1);
    expect(await sample('skil_worker_process_resident_memory_bytes')).toBeGreaterThan(0);
  } finally {
    await good.close();
    await failing.close();
  }
}, 120_000);
