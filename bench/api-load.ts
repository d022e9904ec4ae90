import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { chmod, mkdtemp, open, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { startEmbeddedPostgres } from '../stack/embedded-postgres';
import { startTemporalDevServer } from '../stack/temporal-server';
import { loadOrCreateSecretsKey } from '../stack/secrets-key';
import { createLogger } from '../stack/logger';
import { freePort } from '../stack/free-port';
import { createKnex, type Knex } from '../db/knex';
import { migrateLatest } from '../db/migrate';
import { createMerchantRepository } from '../db/merchants';
import { createApiKeyRepository } from '../db/api-keys';
import { createEventRepository } from '../db/events';
import type { LoadJob, LoadResult } from './api-load-client';

/**
 * API throughput and p99 under load, from a separate process (decision 0188). The API runs as
 * `npm start` runs it (`node --import tsx api/main.ts`, its own process, embedded PostgreSQL, rate
 * limits at their defaults, log lines to a file); the baseline is bare node:http with one INSERT (POST)
 * or one 25-row SELECT (GET) per request on the same PostgreSQL. autocannon runs in a third process.
 * Two modes each: as fast as it answers at 100 connections, and a fixed offered rate (1,000/s).
 *
 * Every request is checked: 2xx only, GET bodies exactly as expected; after each POST run every
 * Idempotency-Key has exactly one checkout session and one stored answer, and a sample replays.
 * Exits non-zero on any failure.
 *
 * Run: npx tsx bench/api-load.ts [checkout|events|all] [seconds=15] [rate=1000]
 * API_CPU_PROF=<dir> adds --cpu-prof to the API process (the profile is written when it stops);
 * API_ROOT=<checkout> runs the API of another checkout (before and after a change, same schema);
 * API_LOAD_SIDES=api leaves out the baseline (for a profile).
 */

const CONNECTIONS = 100;
/**
 * The default test-mode limit is 25 requests a second per key: load from one key would measure
 * 429s. Real load comes from many merchants' keys, so requests take these keys in turn.
 */
const KEYS = 400;
const KEYS_PER_MERCHANT = 100;
const EVENTS = 100;

const run = promisify(execFile);
const failures: string[] = [];

function check(ok: boolean, what: string): void {
  if (!ok) {
    failures.push(what);
    console.error(`FAILED: ${what}`);
  }
}

/** Progress on stderr, so stdout stays one JSON line per measurement. */
function step(what: string): void {
  console.error(`${new Date().toISOString()} ${what}`);
}

function print(fields: Record<string, unknown>): void {
  console.log(
    JSON.stringify({
      ...fields,
      loadavg: os.loadavg().map((l) => Number(l.toFixed(2))),
      cpus: os.cpus().length,
      date: new Date().toISOString(),
    }),
  );
}

async function load(job: LoadJob): Promise<LoadResult> {
  step(`load ${job.method} ${job.url} rate ${job.overallRate ?? 'max'}`);
  const { stdout } = await run(
    process.execPath,
    ['--import', 'tsx', path.join(__dirname, 'api-load-client.ts'), JSON.stringify(job)],
    { maxBuffer: 16 * 2 ** 20 },
  );
  return JSON.parse(stdout.trim().split('\n').pop()!) as LoadResult;
}

async function waitReady(url: string, child: ChildProcess, logFile?: string): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (child.exitCode !== null) {
      const tail = logFile ? (await readFile(logFile, 'utf8')).slice(-3000) : '';
      throw new Error(`${url}: the process exited (${child.exitCode})\n${tail}`);
    }
    const ok = await fetch(url)
      .then((r) => r.status < 500)
      .catch(() => false);
    if (ok) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} never answered`);
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}

interface Seeded {
  checkoutMerchants: string[];
  keys: string[];
  eventsMerchant: string;
  eventsKeys: string[];
}

async function seed(knex: Knex): Promise<Seeded> {
  const merchants = createMerchantRepository(knex);
  const apiKeys = createApiKeyRepository(knex);
  const makeKeys = async (merchantCount: number, perMerchant: number) => {
    const ids: string[] = [];
    const keys: string[] = [];
    for (let m = 0; m < merchantCount; m++) {
      const merchant = await merchants.create({ name: `Load merchant ${m}` });
      ids.push(merchant.id);
      for (let k = 0; k < perMerchant; k++)
        keys.push((await apiKeys.create({ merchantId: merchant.id, livemode: false })).secret);
    }
    return { ids, keys };
  };
  const checkout = await makeKeys(KEYS / KEYS_PER_MERCHANT, KEYS_PER_MERCHANT);
  // One merchant's events for every GET, so all answers are the same page: all its keys are its own.
  const events = await makeKeys(1, KEYS);
  const eventsMerchant = events.ids[0]!;
  const eventsKeys = events.keys;
  const repo = createEventRepository(knex);
  for (let i = 0; i < EVENTS; i++)
    await repo.record(
      { merchantId: eventsMerchant, livemode: false },
      { type: 'claim.paid', data: { id: `clm_${i}` } },
    );
  return { checkoutMerchants: checkout.ids, keys: checkout.keys, eventsMerchant, eventsKeys };
}

async function main(): Promise<void> {
  const which = process.argv[2] ?? 'all';
  const seconds = Number(process.argv[3] ?? 15);
  const rate = Number(process.argv[4] ?? 1000);
  const log = createLogger('api-load', 'warn');
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'skil-api-load-'));
  // Embedded PostgreSQL runs as its own system user when started as root: it must reach its data dir.
  await chmod(dataDir, 0o711);
  const stops: (() => Promise<void>)[] = [];
  try {
    step('starting PostgreSQL');
    const pg = await startEmbeddedPostgres({
      dataDir: path.join(dataDir, 'postgres'),
      port: await freePort(),
      persistent: false,
      log,
      grantTraverseUnder: path.resolve(__dirname, '..'),
    });
    stops.push(() => pg.stop());
    step('starting Temporal');
    const temporal = await startTemporalDevServer({
      dataDir,
      dbFile: null,
      port: await freePort(),
      uiPort: null,
      log,
    });
    stops.push(() => temporal.stop());
    const secretsKey = await loadOrCreateSecretsKey(dataDir);
    const knex = createKnex(pg.url, { poolMax: 4 });
    stops.push(() => knex.destroy());
    step('migrating');
    await migrateLatest(knex, { secretsKey });
    await knex.raw(
      'create table bench_baseline_rows (key text primary key, amount bigint not null, created_at timestamptz not null default now())',
    );
    step('seeding');
    const seeded = await seed(knex);

    const apiPort = await freePort();
    const apiLog = await open(path.join(dataDir, 'api.log'), 'w');
    const profDir = process.env.API_CPU_PROF;
    const api = spawn(
      process.execPath,
      [
        ...(profDir ? ['--cpu-prof', `--cpu-prof-dir=${profDir}`] : []),
        '--import',
        'tsx',
        path.join(process.env.API_ROOT ?? path.join(__dirname, '..'), 'api', 'main.ts'),
      ],
      {
        env: {
          ...process.env,
          DATABASE_URL: pg.url,
          TEMPORAL_ADDRESS: temporal.address,
          SECRETS_ENCRYPTION_KEY: secretsKey,
          PORT: String(apiPort),
          HOST: '127.0.0.1',
          PUBLIC_BASE_URL: `http://127.0.0.1:${apiPort}`,
          // Creating a session or listing events never calls the acquirer; the card pages would.
          SIMULATED_ACQUIRER_URL: 'http://127.0.0.1:9',
        },
        stdio: ['ignore', apiLog.fd, apiLog.fd],
      },
    );
    stops.push(async () => {
      await stopChild(api);
      await apiLog.close();
    });
    const basePort = await freePort();
    const base = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, 'api-load-baseline.ts')], {
      env: {
        ...process.env,
        DATABASE_URL: pg.url,
        PORT: String(basePort),
        MERCHANT_ID: seeded.eventsMerchant,
        POOL_MAX: process.env.DATABASE_POOL_MAX ?? '10',
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    stops.push(() => stopChild(base));
    const apiUrl = `http://127.0.0.1:${apiPort}`;
    const baseUrl = `http://127.0.0.1:${basePort}`;
    step('waiting for the API');
    await waitReady(`${apiUrl}/ready`, api, path.join(dataDir, 'api.log'));
    await waitReady(`${baseUrl}/`, base);

    // API_LOAD_SIDES=api measures the API alone (for a profile of it); the figures need both.
    const sides = (process.env.API_LOAD_SIDES ?? 'baseline,api').split(',') as ('baseline' | 'api')[];
    const modes = [
      { mode: 'max', connections: CONNECTIONS },
      { mode: `fixed ${rate}/s`, connections: CONNECTIONS, overallRate: rate },
    ];

    if (which === 'checkout' || which === 'all') {
      let runNo = 0;
      for (const m of modes) {
        for (const side of sides) {
          const prefix = `load-${runNo++}-`;
          const r = await load({
            url: side === 'api' ? `${apiUrl}/v1/checkout/sessions` : baseUrl,
            method: 'POST',
            keys: side === 'api' ? seeded.keys : [],
            connections: m.connections,
            durationSeconds: seconds,
            ...(m.overallRate !== undefined && { overallRate: m.overallRate }),
            idempotencyPrefix: prefix,
          });
          // Requests cut off at the end of the run may still finish on the server.
          await new Promise((res) => setTimeout(res, 1000));
          const label = `POST /v1/checkout/sessions ${side} ${m.mode}`;
          check(
            r.non2xx === 0 && r.errors === 0 && r.ok2xx > 0,
            `${label}: all 2xx (${JSON.stringify(r.statusCodes)}, errors ${r.errors})`,
          );
          let rows: Record<string, unknown>;
          if (side === 'api') {
            rows = await verifyCheckout(knex, seeded, prefix, r, apiUrl);
          } else {
            const [c] = await knex('bench_baseline_rows')
              .where('key', 'like', `${prefix}%`)
              .count<{ count: string }[]>('* as count');
            rows = { rows: Number(c!.count) };
            check(
              Number(c!.count) >= r.ok2xx && Number(c!.count) <= r.sent,
              `${label}: one row per answered request`,
            );
          }
          print({
            bench: 'api-load',
            request: 'POST /v1/checkout/sessions',
            side,
            mode: m.mode,
            connections: m.connections,
            ...r,
            ...rows,
          });
        }
      }
    }

    if (which === 'events' || which === 'all') {
      const expect = async (url: string, key?: string) =>
        (await fetch(url, key ? { headers: { authorization: `Bearer ${key}` } } : {})).text();
      const apiPage = `${apiUrl}/v1/events?limit=25`;
      const apiBody = await expect(apiPage, seeded.eventsKeys[0]);
      const baseBody = await expect(baseUrl);
      check(JSON.parse(apiBody).data.length === 25, 'GET /v1/events answers 25 events');
      for (const m of modes) {
        for (const side of sides) {
          const r = await load({
            url: side === 'api' ? apiPage : baseUrl,
            method: 'GET',
            keys: side === 'api' ? seeded.eventsKeys : [],
            connections: m.connections,
            durationSeconds: seconds,
            ...(m.overallRate !== undefined && { overallRate: m.overallRate }),
            expectBody: side === 'api' ? apiBody : baseBody,
          });
          const label = `GET /v1/events ${side} ${m.mode}`;
          check(
            r.non2xx === 0 && r.errors === 0 && r.mismatches === 0 && r.ok2xx > 0,
            `${label}: all 200 with the expected page (${JSON.stringify(r.statusCodes)}, errors ${r.errors}, mismatches ${r.mismatches})`,
          );
          print({
            bench: 'api-load',
            request: 'GET /v1/events?limit=25',
            side,
            mode: m.mode,
            connections: m.connections,
            ...r,
          });
        }
      }
    }
  } finally {
    for (const stop of stops.reverse()) await stop().catch((err: unknown) => console.error(err));
    await rm(dataDir, { recursive: true, force: true });
  }
  if (failures.length) {
    console.error(`${failures.length} check(s) failed`);
    process.exit(1);
  }
}

/**
 * Exactly once: each key the client sent made at most one session, each answered key exactly one,
 * each session's key is stored as done, and replaying a sample answers the stored session.
 */
async function verifyCheckout(
  knex: Knex,
  seeded: Seeded,
  prefix: string,
  r: LoadResult,
  apiUrl: string,
): Promise<Record<string, unknown>> {
  const label = `POST /v1/checkout/sessions api (${prefix})`;
  // Requests the client cut off at the end of its run may still be running: count once all are done.
  for (let i = 0; i < 300; i++) {
    const [open] = await knex('idempotency_keys')
      .whereIn('merchant_id', seeded.checkoutMerchants)
      .where('key', 'like', `${prefix}%`)
      .where('state', 'in_flight')
      .count<{ count: string }[]>('* as count');
    if (Number(open!.count) === 0) break;
    await new Promise((res) => setTimeout(res, 100));
  }
  const sessions = await knex('checkout_sessions')
    .whereIn('merchant_id', seeded.checkoutMerchants)
    .whereRaw(`metadata->>'bench_key' like ?`, [`${prefix}%`])
    .select<{ id: string; merchant_id: string; key: string }[]>(
      'id',
      'merchant_id',
      knex.raw(`metadata->>'bench_key' as key`),
    );
  const distinct = new Set(sessions.map((s) => s.key));
  const [done] = await knex('idempotency_keys')
    .whereIn('merchant_id', seeded.checkoutMerchants)
    .where('key', 'like', `${prefix}%`)
    .where('state', 'done')
    .where('response_status', '<', 300)
    .count<{ count: string }[]>('* as count');
  // A request the client cut off at the end of its run may reach the server incomplete and be
  // refused (400, stored as the key's answer): never one the client saw answered.
  const [refused] = await knex('idempotency_keys')
    .whereIn('merchant_id', seeded.checkoutMerchants)
    .where('key', 'like', `${prefix}%`)
    .where((q) => q.whereNot('state', 'done').orWhere('response_status', '>=', 300))
    .count<{ count: string }[]>('* as count');
  check(
    Number(refused!.count) <= r.sent - r.ok2xx,
    `${label}: only unanswered requests were refused (${refused!.count} refused)`,
  );
  check(
    distinct.size === sessions.length,
    `${label}: no key made two sessions (${sessions.length} sessions, ${distinct.size} keys)`,
  );
  check(
    sessions.length >= r.ok2xx && sessions.length <= r.sent,
    `${label}: every answered key made its session (${sessions.length} sessions, ${r.ok2xx} answered, ${r.sent} sent)`,
  );
  check(
    Number(done!.count) === sessions.length,
    `${label}: one stored answer per session (${done!.count} done)`,
  );
  // Replays: the same request under the same key answers the first session and creates nothing.
  let replayed = 0;
  for (const s of sessions.slice(0, 20)) {
    const i = Number(s.key.slice(prefix.length));
    const res = await fetch(`${apiUrl}/v1/checkout/sessions`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${seeded.keys[i % KEYS]!}`,
        'content-type': 'application/json',
        'idempotency-key': s.key,
      },
      body: JSON.stringify({ amount: 1000, metadata: { bench_key: s.key } }),
    });
    const body = (await res.json()) as { id?: string };
    if (res.headers.get('idempotent-replayed') === 'true' && body.id === s.id) replayed++;
  }
  check(
    replayed === Math.min(20, sessions.length),
    `${label}: replays answer the first session (${replayed})`,
  );
  const [after] = await knex('checkout_sessions')
    .whereIn('merchant_id', seeded.checkoutMerchants)
    .whereRaw(`metadata->>'bench_key' like ?`, [`${prefix}%`])
    .count<{ count: string }[]>('* as count');
  check(Number(after!.count) === sessions.length, `${label}: replays created nothing`);
  return {
    sessions: sessions.length,
    keys_done: Number(done!.count),
    keys_refused: Number(refused!.count),
    replays_checked: replayed,
  };
}

void main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
