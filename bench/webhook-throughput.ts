import os from 'node:os';
import http from 'node:http';
import { percentile, withStack } from './harness';
import { startReceiver, type Received } from '../test/helpers/receiver';
import { createEventRepository } from '../db/events';
import { createKnex } from '../db/knex';
import { createWebhookDispatcher } from '../engine/webhook-dispatch';
import { signWebhookBody, verifyWebhookSignature } from '../domain/webhook-signature';
import type { TestStack } from '../test/helpers/stack';
import { cpuByCommand, cpuSince } from './process-cpu';

/**
 * How fast committed events reach a receiver, and how soon after its commit an event's first attempt
 * arrives. Run: npx tsx bench/webhook-throughput.ts [events=2000] [channels=4] [rate=200] [seconds=10]
 *
 * 1. Baseline: the same number of signed POSTs straight to a local receiver over keep-alive, 16 at a
 *    time, with no database and no Temporal: the ceiling of the HTTP path on this machine.
 * 2. Throughput: E events to each of C channels, recorded in one transaction, then one wake-up per
 *    channel; timed until the receiver has every delivery.
 * 3. Latency: events committed one per transaction at a steady rate to one channel, each woken after
 *    its commit as the services do (outbox, then the dispatcher); receipt time minus commit time.
 *
 * Each phase fails the run (exit 1) on a missing or duplicate delivery, a request for an event that
 * was never recorded, or a bad signature. One JSON line per measurement.
 */
async function main(): Promise<void> {
  const events = Number(process.argv[2] ?? 2000);
  const channelCount = Number(process.argv[3] ?? 4);
  const rate = Number(process.argv[4] ?? 200);
  const seconds = Number(process.argv[5] ?? 10);
  const failures: string[] = [];
  await withStack({}, async (stack) => {
    const base = { events, channels: channelCount, deliveries: events * channelCount };
    const baseline = await plainPosts(base.deliveries, 16);
    print({ bench: 'webhook-throughput', phase: 'baseline-plain-posts', ...base, ...baseline });
    const throughput = await throughputPhase(stack, events, channelCount, failures);
    print({
      bench: 'webhook-throughput',
      phase: 'throughput',
      ...base,
      ...throughput,
      ratio_to_baseline: Number((throughput.deliveries_per_s / baseline.deliveries_per_s).toFixed(2)),
      target_met: throughput.deliveries_per_s >= 500,
    });
    const latency = await latencyPhase(stack, rate, seconds, failures);
    print({ bench: 'webhook-latency', phase: 'first-attempt', rate, seconds, ...latency });
  });
  if (failures.length > 0) {
    console.error(`FAILED:\n${failures.join('\n')}`);
    process.exit(1);
  }
}

function print(result: Record<string, unknown>): void {
  console.log(
    JSON.stringify({
      ...result,
      rss_mb: Math.round(process.memoryUsage().rss / 2 ** 20),
      cpus: os.cpus().length,
      loadavg: os.loadavg().map((l) => Number(l.toFixed(2))),
      date: new Date().toISOString(),
    }),
  );
}

/** The HTTP path alone: `count` signed POSTs over keep-alive, `concurrency` at a time. */
async function plainPosts(count: number, concurrency: number) {
  const receiver = await startReceiver();
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const secret = 'whsec_baseline';
  const start = performance.now();
  let next = 0;
  const lane = async () => {
    while (next < count) {
      const body = JSON.stringify({ id: `evt_${next++}`, type: 'claim.paid', data: { amount: 1000 } });
      await new Promise<void>((resolve, reject) => {
        const req = http.request(receiver.url, {
          method: 'POST',
          agent,
          headers: {
            'content-type': 'application/json',
            'x-service-signature': signWebhookBody(secret, body),
          },
        });
        req.on('response', (res) => res.resume().on('end', resolve));
        req.on('error', reject);
        req.end(body);
      });
    }
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
  const s = (performance.now() - start) / 1000;
  agent.destroy();
  await receiver.close();
  return { seconds: Number(s.toFixed(2)), deliveries_per_s: Math.round(count / s) };
}

async function createChannels(stack: TestStack, key: string, url: string, count: number) {
  const secrets = new Map<string, string>();
  for (let i = 0; i < count; i++) {
    const res = await stack.api(key, '/v1/notification-channels', {
      method: 'POST',
      json: { type: 'webhook', config: { url }, event_subscriptions: ['claim.paid'] },
    });
    secrets.set(res.body.id as string, res.body.config.secret as string);
  }
  return secrets;
}

/**
 * Every expected (event, channel) pair arrived exactly once, signed with its channel's secret, and
 * nothing else arrived. The channel of a request is read from its delivery row.
 */
async function check(
  stack: TestStack,
  received: Received[],
  eventIds: Set<string>,
  secrets: Map<string, string>,
  failures: string[],
  phase: string,
): Promise<{ duplicates: number; missing: number; bad_signatures: number }> {
  const rows: { id: string; channel_id: string; event_id: string }[] = await stack
    .knex('webhook_deliveries')
    .whereIn('channel_id', [...secrets.keys()])
    .select('id', 'channel_id', 'event_id');
  const byId = new Map(rows.map((r) => [r.id, r]));
  const seen = new Set<string>();
  let duplicates = 0;
  let badSignatures = 0;
  let strangers = 0;
  for (const r of received) {
    const id = String(r.headers['x-service-delivery-id']);
    const row = byId.get(id);
    if (!row || !eventIds.has(row.event_id) || r.body?.id !== row.event_id) {
      strangers += 1;
      continue;
    }
    if (seen.has(id)) duplicates += 1;
    seen.add(id);
    const header = r.headers['x-service-signature'];
    if (
      !verifyWebhookSignature(
        secrets.get(row.channel_id)!,
        r.rawBody,
        typeof header === 'string' ? header : undefined,
      )
    )
      badSignatures += 1;
  }
  const expected = eventIds.size * secrets.size;
  const missing = expected - seen.size;
  if (rows.length !== expected) failures.push(`${phase}: ${rows.length} delivery rows, expected ${expected}`);
  if (duplicates > 0) failures.push(`${phase}: ${duplicates} duplicate deliveries`);
  if (missing > 0) failures.push(`${phase}: ${missing} missing deliveries`);
  if (badSignatures > 0) failures.push(`${phase}: ${badSignatures} bad signatures`);
  if (strangers > 0) failures.push(`${phase}: ${strangers} requests that match no recorded delivery`);
  return { duplicates, missing, bad_signatures: badSignatures };
}

async function throughputPhase(stack: TestStack, events: number, channelCount: number, failures: string[]) {
  const receiver = await startReceiver();
  const m = await stack.merchant();
  const secrets = await createChannels(stack, m.testKey, receiver.url, channelCount);
  const scope = { merchantId: m.id, livemode: false };
  const eventIds = new Set<string>();
  const recordStart = performance.now();
  await stack.knex.transaction(async (trx) => {
    const repo = createEventRepository(trx);
    for (let i = 0; i < events; i++) {
      const { event } = await repo.record(scope, {
        type: 'claim.paid',
        data: { id: `clm_${i}`, amount: 1000 + i },
      });
      eventIds.add(event.id);
    }
  });
  const recordMs = performance.now() - recordStart;
  const total = events * channelCount;
  const cpuBefore = cpuByCommand();
  const start = performance.now();
  await createWebhookDispatcher({ client: stack.client, knex: stack.knex, taskQueue: stack.taskQueue }).wake([
    ...secrets.keys(),
  ]);
  await receiver.waitFor(total, 120_000).catch((err: Error) => failures.push(`throughput: ${err.message}`));
  const s = (performance.now() - start) / 1000;
  const cpu = cpuSince(cpuBefore);
  // Give a duplicate time to show up before counting.
  await new Promise((r) => setTimeout(r, 1000));
  const counts = await check(stack, receiver.received, eventIds, secrets, failures, 'throughput');
  await receiver.close();
  return {
    record_events_per_s: Math.round(events / (recordMs / 1000)),
    seconds: Number(s.toFixed(2)),
    deliveries_per_s: Math.round(total / s),
    ...counts,
    cpu_seconds: cpu,
  };
}

async function latencyPhase(stack: TestStack, rate: number, seconds: number, failures: string[]) {
  const receiver = await startReceiver();
  const m = await stack.merchant();
  const secrets = await createChannels(stack, m.testKey, receiver.url, 1);
  const scope = { merchantId: m.id, livemode: false };
  // The writer has a pool of its own, as an API process would: sharing the worker's would queue the
  // worker's statements behind the writes and measure the pool rather than the delivery path.
  const writer = createKnex(stack.db.url, { poolMax: WRITER_POOL });
  const dispatcher = createWebhookDispatcher({
    client: stack.client,
    knex: writer,
    taskQueue: stack.taskQueue,
  });
  const repo = createEventRepository(writer);
  const committedAt = new Map<string, number>();
  const count = rate * seconds;
  const cpuBefore = cpuByCommand();
  const started = Date.now();
  const writes: Promise<void>[] = [];
  const inFlight = new Set<Promise<void>>();
  for (let i = 0; i < count; i++) {
    const due = started + (i * 1000) / rate;
    const wait = due - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    // At most one write per pooled connection in flight: a writer that falls behind the rate lowers
    // the achieved rate (reported) instead of queueing until the pool's acquire timeout.
    if (inFlight.size >= WRITER_POOL) await Promise.race(inFlight);
    const write = (async () => {
      const { event, channelIds } = await writer.transaction((trx) =>
        repo.record(scope, { type: 'claim.paid', data: { id: `clm_l${i}`, amount: 500 + i } }, trx),
      );
      committedAt.set(event.id, Date.now());
      await dispatcher.wake(channelIds);
    })();
    inFlight.add(write);
    void write.finally(() => inFlight.delete(write)).catch(() => undefined);
    writes.push(write);
  }
  await Promise.all(writes);
  await writer.destroy();
  const achievedRate = count / ((Date.now() - started) / 1000);
  await receiver.waitFor(count, 60_000).catch((err: Error) => failures.push(`latency: ${err.message}`));
  const cpu = cpuSince(cpuBefore);
  await new Promise((r) => setTimeout(r, 1000));
  const counts = await check(
    stack,
    receiver.received,
    new Set(committedAt.keys()),
    secrets,
    failures,
    'latency',
  );
  const latencies = receiver.received
    .map((r) => r.at - (committedAt.get(String(r.body?.id)) ?? Number.NaN))
    .filter((ms) => Number.isFinite(ms))
    .sort((a, b) => a - b);
  await receiver.close();
  const p50 = latencies.length > 0 ? percentile(latencies, 50) : null;
  return {
    events: count,
    achieved_rate: Math.round(achievedRate),
    p50_ms: p50,
    p99_ms: latencies.length > 0 ? percentile(latencies, 99) : null,
    max_ms: latencies.at(-1) ?? null,
    ...counts,
    target_met: p50 !== null && p50 < 1000,
    cpu_seconds: cpu,
  };
}

/** Connections of the latency phase's event writer (an API process's pool). */
const WRITER_POOL = 8;

void main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
