import os from 'node:os';
import { percentile, withStack } from './harness';
import { startTestStack, type TestMerchant, type TestStack } from '../test/helpers/stack';
import type { RateLimits } from '../api/middleware/rate-limit';
import { createRateLimiter } from '../services/rate-limits';

/**
 * Latency and throughput of authenticated API calls with C concurrent clients for N requests each:
 * a read (GET /v1/events, 25 rows) and a write (POST /v1/notification-channels with an idempotency key),
 * each on an API without rate limits and on one with them (decision 0110: one counter upsert per
 * request), in alternating rounds so both see the same machine; then the limiter's own round trip.
 * Run: npx tsx bench/api-latency.ts [requests=2000] [concurrency=16] [rounds=2]
 */

// Limits high enough never to refuse: the bench measures what counting costs, not refusals.
const NEVER_REFUSE = { max: 1_000_000_000, windowMs: 1000 };
const LIMITS: RateLimits = {
  apiLive: NEVER_REFUSE,
  apiTest: NEVER_REFUSE,
  deviceAuthorize: NEVER_REFUSE,
  deviceToken: NEVER_REFUSE,
  signIn: NEVER_REFUSE,
  pages: NEVER_REFUSE,
};

async function main(): Promise<void> {
  const requests = Number(process.argv[2] ?? 2000);
  const concurrency = Number(process.argv[3] ?? 16);
  const rounds = Number(process.argv[4] ?? 2);
  await withStack({ worker: false }, async (plain) => {
    const limited = await startTestStack({ worker: false, rateLimits: LIMITS });
    try {
      const setups: { name: string; stack: TestStack; m: TestMerchant }[] = [];
      for (const [name, stack] of [
        ['no limits', plain],
        ['rate limits', limited],
      ] as const) {
        const m = await stack.merchant();
        const { createEventRepository } = await import('../db/events');
        const repo = createEventRepository(stack.knex);
        for (let i = 0; i < 100; i++)
          await repo.record(
            { merchantId: m.id, livemode: false },
            { type: 'claim.paid', data: { id: `clm_${i}` } },
          );
        setups.push({ name, stack, m });
      }

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
            load: os.loadavg()[0]!.toFixed(1),
          }),
        );
      };
      let key = 0;
      for (let round = 1; round <= rounds; round++) {
        for (const { name, stack, m } of setups) {
          await run(`GET /v1/events, ${name}, round ${round}`, async () => {
            return (await stack.api(m.testKey, '/v1/events')).status;
          });
        }
        for (const { name, stack, m } of setups) {
          await run(`POST /v1/notification-channels, ${name}, round ${round}`, async () => {
            const res = await stack.api(m.testKey, '/v1/notification-channels', {
              method: 'POST',
              json: {
                type: 'webhook',
                config: { url: 'http://localhost:9/hook' },
                event_subscriptions: ['*'],
              },
              headers: { 'idempotency-key': `bench-${key++}` },
            });
            return res.status;
          });
        }
      }

      // The limiter alone: one counter upsert, sequentially and with `concurrency` callers on one bucket.
      const limiter = createRateLimiter({ knex: limited.knex });
      for (const callers of [1, concurrency]) {
        const latencies: number[] = [];
        let next = 0;
        const start = performance.now();
        await Promise.all(
          Array.from({ length: callers }, async () => {
            while (next < requests) {
              next++;
              const t = performance.now();
              await limiter.take('bench:one-bucket', NEVER_REFUSE);
              latencies.push(performance.now() - t);
            }
          }),
        );
        const seconds = (performance.now() - start) / 1000;
        latencies.sort((a, b) => a - b);
        console.log(
          JSON.stringify({
            bench: 'rate-limiter take (one upsert)',
            requests,
            concurrency: callers,
            per_second: Math.round(requests / seconds),
            p50_ms: Number(percentile(latencies, 50).toFixed(2)),
            p99_ms: Number(percentile(latencies, 99).toFixed(2)),
            load: os.loadavg()[0]!.toFixed(1),
          }),
        );
      }
    } finally {
      await limited.stop();
    }
  });
}

void main();
