import os from 'node:os';
import { percentile, withStack } from './harness';

/**
 * Latency and throughput of authenticated API calls with C concurrent clients for N requests each:
 * a read (GET /v1/events, 25 rows) and a write (POST /v1/notification-channels with an idempotency key).
 * Run: npx tsx bench/api-latency.ts [requests=2000] [concurrency=16]
 */
async function main(): Promise<void> {
  const requests = Number(process.argv[2] ?? 2000);
  const concurrency = Number(process.argv[3] ?? 16);
  await withStack({ worker: false }, async (stack) => {
    const m = await stack.merchant();
    const { createEventRepository } = await import('../db/events');
    const repo = createEventRepository(stack.knex);
    for (let i = 0; i < 100; i++)
      await repo.record(
        { merchantId: m.id, livemode: false },
        { type: 'claim.paid', data: { id: `clm_${i}` } },
      );

    const run = async (name: string, call: (i: number) => Promise<number>) => {
      const latencies: number[] = [];
      let next = 0;
      let failures = 0;
      const start = performance.now();
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          while (next < requests) {
            const i = next++;
            const t = performance.now();
            const status = await call(i);
            latencies.push(performance.now() - t);
            if (status !== 200) failures++;
          }
        }),
      );
      const seconds = (performance.now() - start) / 1000;
      latencies.sort((a, b) => a - b);
      console.log(
        JSON.stringify({
          bench: `api-latency ${name}`,
          requests,
          concurrency,
          rps: Math.round(requests / seconds),
          p50_ms: Number(percentile(latencies, 50).toFixed(1)),
          p99_ms: Number(percentile(latencies, 99).toFixed(1)),
          failures,
          rss_mb: Math.round(process.memoryUsage().rss / 2 ** 20),
          cpus: os.cpus().length,
        }),
      );
    };
    await run('GET /v1/events', async () => (await stack.api(m.testKey, '/v1/events')).status);
    await run('POST /v1/notification-channels', async (i) => {
      const res = await stack.api(m.testKey, '/v1/notification-channels', {
        method: 'POST',
        json: { type: 'webhook', config: { url: 'http://localhost:9/hook' }, event_subscriptions: ['*'] },
        headers: { 'idempotency-key': `bench-${i}` },
      });
      return res.status;
    });
  });
}

void main();
