import os from 'node:os';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { withStack } from './harness';
import { bufferUse, statementStats } from './statement-stats';
import { cpuByCommand, cpuOfProcess, cpuSince } from './process-cpu';
import { startReceiver } from '../test/helpers/receiver';
import { killHard, spawnWorker } from '../test/helpers/worker-process';
import { seedSubscriptions } from '../test/helpers/subscriptions';
import { newId, ID_PREFIX } from '../domain/ids';
import { sqlArgs } from '../db/event-batch';
import type { Knex } from '../db/knex';

/**
 * Renewal day: N monthly subscriptions on one test clock, all due at the same instant; the clock is
 * advanced once through the API and the real worker process (bench/renewal-worker.ts: the acquirer in-process, at the
 * given latency) renews them all: charge, renewal row, payment intent, events, deliveries. Then a
 * baseline writes the same rows with a plain batched INSERT script, no charging, no Temporal.
 * Run: npx tsx bench/renewal-day.ts [n=100000] [latencies=0,50]
 * RENEWAL_DAY_BASELINE=0 leaves the baseline out (its figure at that N already recorded).
 * RENEWAL_DAY_DRAIN=0 stops the worker when the renewals are done instead of waiting for the day's
 * webhooks (at 1,000,000 the drain takes about as long as the renewals); their rows are still checked.
 */
const T0 = Date.UTC(2027, 0, 1, 0, 0, 0);

function peakRssMb(child: ChildProcess): number {
  const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
  const kb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return Math.round(kb / 1024);
}

async function count(knex: Knex, sql: string, merchantId: string): Promise<number> {
  return Number((await knex.raw<{ rows: { n: string }[] }>(sql, [merchantId])).rows[0]!.n);
}

/**
 * Exactly once, checked from both sides: Skil's rows (one paid renewal, one succeeded payment intent,
 * one invoice per subscription, numbered without gaps; their events and deliveries) and the
 * acquirer's journal (one capture per subscription's period, totalling what the intents captured).
 * Returns what is wrong; empty when nothing is.
 */
async function exactlyOnce(
  knex: Knex,
  merchantId: string,
  n: number,
  journalFile: string,
): Promise<string[]> {
  const one = async (sql: string) =>
    (await knex.raw<{ rows: Record<string, string | null>[] }>(sql, [merchantId])).rows[0]!;
  const r = await one(
    `select count(*) filter (where status = 'paid') as paid, count(*) as all,
            count(distinct subscription_id) as subs from renewals where merchant_id = ?`,
  );
  const p = await one(
    `select count(*) filter (where status = 'succeeded') as succeeded, count(*) as all,
            coalesce(sum(amount_captured), 0) as captured from payment_intents where merchant_id = ?`,
  );
  const i = await one(
    `select count(*) as n, count(distinct payment_intent_id) as intents, min(sequence) as lo, max(sequence) as hi
       from invoices where merchant_id = ?`,
  );
  const e = await one(
    `select count(*) filter (where type = 'subscription.renewed') as renewed,
            count(*) filter (where type = 'payment_intent.captured') as captured,
            count(*) filter (where type = 'invoice.finalized') as invoiced from events where merchant_id = ?`,
  );
  const d = await one(
    'select count(*) as n, count(distinct event_id) as events from webhook_deliveries where merchant_id = ?',
  );
  const captures = readFileSync(journalFile, 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('capture '))
    .map((l) => l.split(' '));
  // The key is `{subscription}:{period_start}:{attempt}:capture`: one subscription's period charged once.
  const periods = new Set(captures.map(([, , key]) => key!.split(':').slice(0, -2).join(':')));
  const journalTotal = captures.reduce((t, [, , , amount]) => t + Number(amount), 0);
  const want: [string, unknown, unknown][] = [
    ['paid renewals', Number(r.paid), n],
    ['renewals', Number(r.all), n],
    ['subscriptions renewed', Number(r.subs), n],
    ['succeeded payment intents', Number(p.succeeded), n],
    ['payment intents', Number(p.all), n],
    ['invoices', Number(i.n), n],
    ['invoiced payments', Number(i.intents), n],
    ['invoice numbers', `${i.lo}..${i.hi}`, `1..${n}`],
    ['subscription.renewed events', Number(e.renewed), n],
    ['payment_intent.captured events', Number(e.captured), n],
    ['invoice.finalized events', Number(e.invoiced), n],
    ['webhook deliveries', Number(d.n), 2 * n],
    ['events delivered', Number(d.events), 2 * n],
    ['acquirer captures', captures.length, n],
    ['periods captured', periods.size, n],
    ['acquirer total = captured by intents', journalTotal, Number(p.captured)],
  ];
  return want
    .filter(([, got, expected]) => got !== expected)
    .map(([what, got, expected]) => `${what}: ${String(got)}, want ${String(expected)}`);
}

async function main(): Promise<void> {
  const n = Number(process.argv[2] ?? 100_000);
  const latencies = (process.argv[3] ?? '0,50').split(',').map(Number);
  await withStack({ worker: false, realBaseUrl: true }, async (stack) => {
    // Counted only: the run's checks read the deliveries' rows.
    const receiver = await startReceiver(undefined, { retain: false });
    const results: Record<string, unknown>[] = [];
    try {
      const journalDir = mkdtempSync(path.join(os.tmpdir(), 'renewal-day-'));
      for (const latency of latencies) {
        process.env.SIMULATED_ACQUIRER_LATENCY_MS = String(latency);
        const journalFile = path.join(journalDir, `acquirer-${latency}.log`);
        process.env.SIMULATED_ACQUIRER_JOURNAL = journalFile;
        const worker = await spawnWorker(stack, { entry: path.join(__dirname, 'renewal-worker.ts') });
        // The worker logs each page's phases; summed, they are the profile of the run.
        const profile = { pages: 0, createMs: 0, chargeMs: 0, finishMs: 0, notifyMs: 0 };
        let buffered = '';
        worker.stdout?.on('data', (chunk: Buffer) => {
          buffered += chunk.toString();
          const lines = buffered.split('\n');
          buffered = lines.pop() ?? '';
          for (const line of lines) {
            if (!line.includes('"msg":"billing page"')) continue;
            const p = JSON.parse(line) as Record<string, number>;
            profile.pages += 1;
            profile.createMs += p.createMs ?? 0;
            profile.chargeMs += p.chargeMs ?? 0;
            profile.finishMs += p.finishMs ?? 0;
            profile.notifyMs += p.notifyMs ?? 0;
          }
        });
        const m = await stack.merchant();
        await stack.api(m.testKey, '/v1/notification-channels', {
          method: 'POST',
          json: {
            type: 'webhook',
            config: { url: receiver.url },
            event_subscriptions: ['subscription.renewed', 'payment_intent.captured'],
          },
        });
        const clock = await stack.api(m.testKey, '/v1/test_helpers/test_clocks', {
          method: 'POST',
          json: { frozen_time: T0 / 1000 },
        });
        const seedStart = performance.now();
        await seedSubscriptions(stack.knex, {
          merchantId: m.id,
          n,
          anchor: new Date(T0),
          testClockId: clock.body.id,
        });
        const seedSeconds = (performance.now() - seedStart) / 1000;
        await stack.knex.raw('analyze subscriptions');
        const cpuBefore = {
          worker: cpuOfProcess(worker.pid!),
          processes: cpuByCommand(),
          bench: process.cpuUsage(),
        };
        await statementStats.reset(stack.knex);
        const buffersBefore = await bufferUse.mark(stack.knex);
        const receivedBefore = receiver.count();
        const start = Date.now();
        const adv = await stack.api(m.testKey, `/v1/test_helpers/test_clocks/${clock.body.id}/advance`, {
          method: 'POST',
          json: { frozen_time: (T0 + 32 * 86_400_000) / 1000 },
        });
        if (adv.status !== 200) throw new Error(adv.text);
        for (;;) {
          const c = await stack.api(m.testKey, `/v1/test_helpers/test_clocks/${clock.body.id}`);
          if (c.body.status === 'ready') break;
          await new Promise((r) => setTimeout(r, 250));
        }
        const seconds = (Date.now() - start) / 1000;
        const benchCpu = process.cpuUsage(cpuBefore.bench);
        // Where the two cores went during the run: the worker, PostgreSQL, and this process (the API,
        // Temporal's client and the webhook receiver); the Temporal dev server is the rest.
        const cpu = {
          worker: Number((cpuOfProcess(worker.pid!) - cpuBefore.worker).toFixed(1)),
          postgres: cpuSince(cpuBefore.processes).postgres ?? 0,
          bench_process: Number(((benchCpu.user + benchCpu.system) / 1e6).toFixed(1)),
        };
        // The day's webhooks. How many arrive while the renewals run depends on N (at 1,000,000 nearly
        // all, at 100,000 a fraction, the rest after the clock is ready), so the time to the last one
        // is the measure of the whole day's work that compares across sizes.
        const receivedDuringRun = receiver.count() - receivedBefore;
        const buffers = await bufferUse.since(stack.knex, buffersBefore);
        const drain = process.env.RENEWAL_DAY_DRAIN !== '0';
        if (drain) await receiver.waitFor(receivedBefore + 2 * n, 3_600_000);
        const secondsToLastDelivery = drain ? Number(((Date.now() - start) / 1000).toFixed(1)) : null;
        // The database's profile of the whole day, renewals and webhooks.
        await statementStats.top(stack.knex);
        const last = (
          await stack.knex('renewals').where({ merchant_id: m.id }).max<{ max: Date }[]>('updated_at as max')
        )[0]!.max;
        const renewed = await count(
          stack.knex,
          `select count(*) as n from renewals where merchant_id = ? and status = 'paid'`,
          m.id,
        );
        const deliveries = await count(
          stack.knex,
          'select count(*) as n from webhook_deliveries where merchant_id = ?',
          m.id,
        );
        const events = await count(
          stack.knex,
          'select count(*) as n from events where merchant_id = ?',
          m.id,
        );
        results.push({
          bench: 'renewal-day',
          n,
          acquirer_latency_ms: latency,
          renewed,
          events,
          deliveries,
          seconds: Number(seconds.toFixed(1)),
          seconds_to_last_renewal: Number(((last.getTime() - start) / 1000).toFixed(1)),
          webhooks_received_during_run: receivedDuringRun,
          seconds_to_last_delivery: secondsToLastDelivery,
          renewals_per_s: Math.round(renewed / seconds),
          worker_peak_rss_mb: peakRssMb(worker),
          cpu_seconds: cpu,
          // The renewals' share of the database's buffer traffic, and the database's size after them.
          database: buffers,
          seed_seconds: Number(seedSeconds.toFixed(1)),
          page_phase_seconds: {
            pages: profile.pages,
            create: Math.round(profile.createMs / 1000),
            charge: Math.round(profile.chargeMs / 1000),
            finish: Math.round(profile.finishMs / 1000),
            notify: Math.round(profile.notifyMs / 1000),
          },
        });
        // The journal is flushed every 100 ms; a graceful stop flushes the rest.
        worker.kill('SIGINT');
        await Promise.race([
          new Promise((r) => worker.once('exit', r)),
          new Promise((r) => setTimeout(r, 10_000)),
        ]);
        await killHard(worker);
        const wrong = await exactlyOnce(stack.knex, m.id, n, journalFile);
        results.at(-1)!.exactly_once = wrong.length === 0 ? 'ok' : wrong;
        console.log(JSON.stringify(results.at(-1)));
        if (wrong.length > 0) process.exitCode = 1;
      }
      rmSync(journalDir, { recursive: true, force: true });
      if (process.env.RENEWAL_DAY_BASELINE === '0') return;

      // Baseline: the same rows the renewal day leaves, each written once in its final state by plain
      // batched statements of 1,000 rows, for subscriptions seeded the same way: renewal, payment
      // intent, acquirer fee, invoice (numbered), the subscription moved to its next period, three
      // events (renewed, captured, invoice finalized) and the two deliveries the channel wants.
      const m = await stack.merchant();
      await stack.api(m.testKey, '/v1/notification-channels', {
        method: 'POST',
        json: {
          type: 'webhook',
          config: { url: receiver.url },
          event_subscriptions: ['subscription.renewed', 'payment_intent.captured'],
        },
      });
      const channel = await stack
        .knex('notification_channels')
        .where({ merchant_id: m.id })
        .first<{ id: string }>('id');
      await seedSubscriptions(stack.knex, { merchantId: m.id, n, anchor: new Date(T0) });
      const subs = await stack
        .knex('subscriptions')
        .where({ merchant_id: m.id })
        .select<{ id: string; customer_id: string; payment_method_id: string }[]>(
          'id',
          'customer_id',
          'payment_method_id',
        );
      const start = performance.now();
      for (let i = 0; i < subs.length; i += 1000) {
        const page = subs.slice(i, i + 1000);
        const pis = page.map(() => newId(ID_PREFIX.paymentIntent));
        const evs = page.flatMap(() => [newId(ID_PREFIX.event), newId(ID_PREFIX.event)]);
        const invoiceEvents = page.map(() => newId(ID_PREFIX.event));
        const invoices = page.map(() => newId(ID_PREFIX.invoice));
        await stack.knex.transaction(async (trx) => {
          await trx('payment_intents').insert(
            page.map((s, j) => ({
              id: pis[j],
              merchant_id: m.id,
              livemode: false,
              amount: 2990,
              status: 'succeeded',
              customer_id: s.customer_id,
              payment_method_id: s.payment_method_id,
              subscription_id: s.id,
              amount_captured: 2990,
              fee_amount: 45,
              captured_at: new Date(),
            })),
          );
          await trx('renewals').insert(
            page.map((s, j) => ({
              id: newId(ID_PREFIX.renewal),
              merchant_id: m.id,
              livemode: false,
              subscription_id: s.id,
              period_index: 1,
              period_start: new Date(T0 + 31 * 86_400_000),
              period_end: new Date(T0 + 59 * 86_400_000),
              price_id: 'x',
              quantity: 1,
              amount_subtotal: 2990,
              discount_amount: 0,
              amount: 2990,
              vat_rate: 24,
              vat_amount: 579,
              status: 'paid',
              payment_intent_id: pis[j],
            })),
          );
          await trx('events').insert(
            page.flatMap((s, j) => [
              {
                id: evs[2 * j],
                merchant_id: m.id,
                livemode: false,
                type: 'subscription.renewed',
                data: { id: s.id },
              },
              {
                id: evs[2 * j + 1],
                merchant_id: m.id,
                livemode: false,
                type: 'payment_intent.captured',
                data: { id: pis[j] },
              },
            ]),
          );
          await trx.raw(
            `insert into webhook_deliveries (id, merchant_id, livemode, channel_id, event_id, status, max_attempts,
               next_attempt_at)
             select 'whd_' || substr(md5(e), 1, 24), ?, false, ?, e, 'pending', 5, now() from unnest(?::text[]) e`,
            sqlArgs(m.id, channel.id, evs),
          );
          await trx.raw(
            `insert into payment_costs (merchant_id, livemode, kind, source_id, idempotency_key, payment_intent_id,
               amount, occurred_at, recorded_at)
             select ?, false, 'acquirer_fee', 'auth_' || p, 'acquirer_fee:auth_' || p, p, 40, now(), now()
               from unnest(?::text[]) p`,
            sqlArgs(m.id, pis),
          );
          await trx.raw(
            `update subscriptions s set current_period_index = 1, current_period_start = ?, current_period_end = ?,
                    updated_at = now()
               from unnest(?::text[]) t(id) where s.id = t.id`,
            sqlArgs(
              new Date(T0 + 31 * 86_400_000),
              new Date(T0 + 59 * 86_400_000),
              page.map((s) => s.id),
            ),
          );
          await trx.raw(
            `insert into invoice_sequences as q (merchant_id, livemode, last_number) values (?, false, ?)
             on conflict (merchant_id, livemode) do update set last_number = q.last_number + excluded.last_number`,
            sqlArgs(m.id, page.length),
          );
          await trx.raw(
            `insert into invoices (id, merchant_id, livemode, sequence, number, status, payment_intent_id, customer_id,
               subscription_id, seller, buyer, lines, vat, total, total_vat, issued_at, supplied_at, payment_reference)
             select t.id, ?, false, ? + t.ord, 'TEST-' || lpad((? + t.ord)::text, 6, '0'), 'paid', t.pi, t.cus, t.sub,
                    '{"name":"Merchant ehf.","kennitala":"5501692829"}', '{"name":null,"email":null}',
                    '[{"description":"Áskrift","quantity":1,"unit_amount":2990,"vat_rate":24,"amount":2990}]',
                    '[{"rate":24,"base":2411,"vat":579}]', 2990, 579, now(), now(), t.pi
               from unnest(?::text[], ?::text[], ?::text[], ?::text[]) with ordinality as t(id, pi, cus, sub, ord)`,
            sqlArgs(
              m.id,
              i,
              i,
              invoices,
              pis,
              page.map((s) => s.customer_id),
              page.map((s) => s.id),
            ),
          );
          await trx('events').insert(
            page.map((s, j) => ({
              id: invoiceEvents[j],
              merchant_id: m.id,
              livemode: false,
              type: 'invoice.finalized',
              data: { id: invoices[j] },
            })),
          );
        });
      }
      const baselineSeconds = (performance.now() - start) / 1000;
      const baselinePerS = Math.round(n / baselineSeconds);
      const baseline = {
        bench: 'renewal-day-baseline',
        n,
        seconds: Number(baselineSeconds.toFixed(1)),
        rows_per_s: baselinePerS,
        ratios: results.map((r) => Number(((r.renewals_per_s as number) / baselinePerS).toFixed(2))),
        cpus: os.cpus().length,
        load: os.loadavg().map((l) => l.toFixed(1)),
      };
      console.log(JSON.stringify(baseline));
    } finally {
      await receiver.close();
    }
  });
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
