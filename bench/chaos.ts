import { appendFileSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../stack/config';
import { createLogger } from '../stack/logger';
import { freePort } from '../stack/free-port';
import { startCluster, type Cluster } from '../stack/cluster';
import type { SupervisedProcess } from '../stack/supervised-process';
import { createKnex } from '../db/knex';
import { createUserRepository } from '../db/users';
import { hashPassword } from '../domain/password';
import { randomBase62 } from '../domain/ids';
import { seedSubscriptions } from '../test/helpers/subscriptions';
import { callTool, connectMcp } from '../test/helpers/mcp';
import { checkAcquirer, checkBooks, checkShards, type Check } from './chaos-checks';

/**
 * The chaos run (decision 0171): the cluster of `npm run start:cluster` (Temporal server on PostgreSQL,
 * 4 history shards, two APIs behind the load balancer, two workers), a renewal day of N subscriptions on a test
 * clock and then a settlement day, while these faults are injected with work in flight: kill -9 of a worker and of
 * an API process, a restart of the Temporal server, a restart of PostgreSQL, and kill -9 of the other worker during
 * the settlement day. Then every renewal, payment, capture at the acquirer, event, delivery and settlement line is
 * counted, and the ledger invariant checked. Rate limits and `/mcp` are exercised through the load balancer.
 *
 * Run: `npm run chaos` (CHAOS_SUBSCRIPTIONS=10000, CHAOS_ACQUIRER_LATENCY_MS=300). Its state and logs are in
 * `.data/chaos` (deleted at the start of each run); the timeline in `.data/chaos/chaos.log`, the result in
 * `.data/chaos/result.json`. Exit code 0 only when every check holds.
 */
const N = Number(process.env.CHAOS_SUBSCRIPTIONS ?? 10_000);
const LATENCY_MS = process.env.CHAOS_ACQUIRER_LATENCY_MS ?? '300';
const UNIT_AMOUNT = 2990;
const DAY_MS = 86_400_000;
const t0 = Date.now();

let logFile = '';
function note(message: string, data: Record<string, unknown> = {}): void {
  const line = `[+${((Date.now() - t0) / 1000).toFixed(1)}s] ${message} ${JSON.stringify(data)}`;
  console.log(line);
  if (logFile) appendFileSync(logFile, line + '\n');
}

/** A frontend port whose neighbours (membership and service ports, see servicePorts) are free too. */
async function freeFrontendPort(): Promise<number> {
  for (;;) {
    const base = 20_000 + Math.floor(Math.random() * 12_000);
    const wanted = [
      base,
      base + 1,
      base + 2,
      base + 6,
      base + 10,
      base - 300,
      base - 299,
      base - 298,
      base - 294,
    ];
    if ((await Promise.all(wanted.map(isFree))).every(Boolean)) return base;
  }
}

function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = http.createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

/** Counts every webhook request and the distinct events they carry. */
async function startCountingReceiver() {
  const events = new Set<string>();
  let requests = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      requests += 1;
      try {
        events.add((JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: string }).id);
      } catch {
        // counted as a request; an unreadable body carries no event
      }
      res.end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    counts: () => ({ requests, events: events.size }),
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

async function main(): Promise<void> {
  const dataDir = path.resolve(process.env.DATA_DIR ?? '.data');
  const stateDir = path.join(dataDir, 'chaos');
  await rm(stateDir, { recursive: true, force: true });
  await mkdir(stateDir, { recursive: true });
  logFile = path.join(stateDir, 'chaos.log');

  // Every port free, so that the run can go beside `npm start` or a test suite.
  const lbPort = await freePort();
  Object.assign(process.env, {
    PORT: String(lbPort),
    TEMPORAL_PORT: String(await freeFrontendPort()),
    TEMPORAL_UI_PORT: String(await freePort()),
    EMBEDDED_PG_PORT: String(await freePort()),
    PUBLIC_BASE_URL: `http://127.0.0.1:${lbPort}`,
    SIMULATED_BANK_PORT: '0',
    SIMULATED_BANK_SFTP_PORT: '0',
    SIMULATED_ACQUIRER_PORT: '0',
    SIMULATED_CARRIERS_PORT: '0',
    SIMULATED_ACCESS_POINT_PORT: '0',
    MAIL_CATCHER_SMTP_PORT: '0',
    MAIL_CATCHER_PORT: '0',
    SIMULATED_ACQUIRER_LATENCY_MS: LATENCY_MS,
  });
  for (const name of [
    'DATABASE_URL',
    'TEMPORAL_ADDRESS',
    'SIMULATED_ACQUIRER_URL',
    'SIMULATED_CARRIERS_URL',
    'SMTP_URL',
  ])
    delete process.env[name];
  const config = loadConfig();
  const log = createLogger('chaos', process.env.LOG_LEVEL ?? 'warn');
  note('starting the cluster', {
    n: N,
    acquirerLatencyMs: Number(LATENCY_MS),
    cpus: os.cpus().length,
    load: os.loadavg(),
  });
  const cluster = await startCluster({
    config,
    log,
    stateDir,
    historyShards: 4,
    // An hour's window, so the check below cannot straddle a window's end.
    env: { RATE_LIMIT_DEVICE_AUTHORIZE: '10/1h' },
  });
  note('cluster running', {
    lb: cluster.url,
    temporal: cluster.temporalAddress,
    ui: cluster.temporalUiUrl,
    apis: cluster.apis.map((a) => a.pid()),
    workers: cluster.workers.map((w) => w.pid()),
  });
  const checks: Check[] = [];
  const receiver = await startCountingReceiver();
  const knex = createKnex(cluster.databaseUrl, { poolMax: 4 });
  try {
    await run(cluster, knex, receiver, checks);
  } finally {
    await knex.destroy().catch(() => undefined);
    await cluster.stop();
    await receiver.close();
  }
  const acquirer = await checkAcquirer(path.join(stateDir, 'simulated-acquirer'), lastAuthorizations, {
    n: N,
    unitAmount: UNIT_AMOUNT,
  });
  checks.push(...acquirer);
  for (const c of acquirer) note(c.ok ? 'check ok' : 'CHECK FAILED', c);
  const passed = checks.every((c) => c.ok);
  const result = { passed, n: N, seconds: Math.round((Date.now() - t0) / 1000), checks, ...summary };
  await writeFile(path.join(stateDir, 'result.json'), JSON.stringify(result, null, 2) + '\n');
  note(passed ? 'CHAOS RUN PASSED' : 'CHAOS RUN FAILED', { result: path.join(stateDir, 'result.json') });
  process.exit(passed ? 0 : 1);
}

let lastAuthorizations: string[] = [];
const summary: Record<string, unknown> = {};

type Call = { status: number; body: any };

async function run(
  cluster: Cluster,
  knex: ReturnType<typeof createKnex>,
  receiver: Awaited<ReturnType<typeof startCountingReceiver>>,
  checks: Check[],
): Promise<void> {
  const key = cluster.demo.testKey;
  const merchantId = cluster.demo.merchantId;
  /** Through the load balancer, retrying what a dying API process could not answer (with the same key). */
  const api = async (
    token: string,
    p: string,
    init: { method?: string; json?: unknown } = {},
  ): Promise<Call> => {
    const idem = randomBase62(16);
    for (let attempt = 0; ; attempt++) {
      const res = await fetch(cluster.url + p, {
        method: init.method ?? 'GET',
        headers: {
          authorization: `Bearer ${token}`,
          ...(init.json !== undefined && { 'content-type': 'application/json', 'idempotency-key': idem }),
        },
        ...(init.json !== undefined && { body: JSON.stringify(init.json) }),
      }).then(
        async (r) => ({ status: r.status, body: (await r.json().catch(() => null)) as any }),
        () => ({ status: 0, body: null }),
      );
      if (![0, 429, 502, 503].includes(res.status) || attempt >= 60) return res;
      await new Promise((r) => setTimeout(r, 1_000));
    }
  };

  // An operator, as `npm run operator:create` makes one.
  const users = createUserRepository(knex);
  const operator = await users.create({
    kind: 'operator',
    merchantId: null,
    email: `chaos-${randomBase62(6).toLowerCase()}@skil.test`,
    passwordHash: await hashPassword(randomBase62(24)),
  });
  const operatorToken = (await users.createOperatorToken(operator.id)).token;
  // The payout destination an approved application would have given the merchant (as the settlement tests set it).
  await knex('merchants')
    .where({ id: merchantId })
    .update({ kennitala: '4709063520', bank_account: '0111-26-123456' });

  const channel = await api(key, '/v1/notification-channels', {
    method: 'POST',
    json: {
      type: 'webhook',
      config: { url: receiver.url },
      event_subscriptions: ['subscription.renewed', 'payment_intent.captured'],
    },
  });
  if (channel.status !== 200) throw new Error(`channel: ${JSON.stringify(channel.body)}`);
  // The period renews a few days ago, so the settlement day (cut off now) takes every renewal.
  const anchor = new Date(Math.floor((Date.now() - 35 * DAY_MS) / 3_600_000) * 3_600_000);
  const clock = await api(key, '/v1/test_helpers/test_clocks', {
    method: 'POST',
    json: { frozen_time: anchor.getTime() / 1000 },
  });
  if (clock.status !== 200) throw new Error(`clock: ${JSON.stringify(clock.body)}`);
  const clockId = clock.body.id as string;
  // Set-based, as bench/renewal-day.ts does: the subject here is the renewal and settlement, not sign-up.
  await seedSubscriptions(knex, { merchantId, n: N, anchor, testClockId: clockId, unitAmount: UNIT_AMOUNT });
  await knex.raw('analyze subscriptions');
  note('seeded', { subscriptions: N, anchor: anchor.toISOString() });

  await surfacesThroughLoadBalancer(cluster, api, key, checks);

  // Traffic through the load balancer for the whole run, so the API's kill -9 meets requests in flight.
  const traffic: Record<string, number> = {};
  let trafficOn = true;
  const trafficLoop = (async () => {
    while (trafficOn) {
      const status = await fetch(`${cluster.url}/v1/events?limit=1`, {
        headers: { authorization: `Bearer ${key}` },
      }).then(
        (r) => r.status,
        () => 0,
      );
      traffic[status] = (traffic[status] ?? 0) + 1;
      await new Promise((r) => setTimeout(r, 100));
    }
  })();

  const renewed = async (): Promise<number | null> =>
    knex
      .raw<{ rows: { n: string }[] }>(
        `select count(*) as n from renewals where merchant_id = ? and period_index = 1 and status = 'paid'`,
        [merchantId],
      )
      .then(
        (r) => Number(r.rows[0]!.n),
        () => null,
      );
  let lastRenewed = 0;
  const progress = async () => {
    const n = await renewed();
    if (n !== null) lastRenewed = n;
    return lastRenewed;
  };
  const untilRenewed = async (share: number) => {
    while ((await progress()) < share * N) await new Promise((r) => setTimeout(r, 200));
  };

  const advanceAt = Date.now();
  const target = new Date(anchor.getTime() + 32 * DAY_MS);
  const adv = await api(key, `/v1/test_helpers/test_clocks/${clockId}/advance`, {
    method: 'POST',
    json: { frozen_time: target.getTime() / 1000 },
  });
  if (adv.status !== 200) throw new Error(`advance: ${JSON.stringify(adv.body)}`);
  note('clock advanced: the renewal day runs', { to: target.toISOString() });
  let clockReady = false;
  const clockDone = (async () => {
    for (;;) {
      const c = await api(key, `/v1/test_helpers/test_clocks/${clockId}`);
      if (c.body?.status === 'ready') break;
      await new Promise((r) => setTimeout(r, 500));
    }
    clockReady = true;
  })();

  const faults: Record<string, unknown>[] = [];
  const inject = async (name: string, share: number, act: () => Promise<unknown>) => {
    await untilRenewed(share);
    const before = lastRenewed;
    const inFlight = !clockReady && before < N;
    const started = Date.now();
    const detail = await act();
    const after = await progress();
    const fault = {
      fault: name,
      inFlight,
      renewedBefore: before,
      renewedAfter: after,
      seconds: (Date.now() - started) / 1000,
      ...(detail as object),
    };
    faults.push(fault);
    note(`FAULT ${name}`, fault);
  };
  await inject('kill -9 worker-1', 0.05, () => killHard(cluster.workers[0]!));
  await inject('kill -9 api-1', 0.2, () => killHard(cluster.apis[0]!));
  await inject('restart temporal server', 0.35, async () => {
    await cluster.temporal.restart();
    return { pid: cluster.temporal.pid() };
  });
  await inject('restart postgresql', 0.55, async () => {
    await cluster.restartPostgres();
    return {};
  });
  await clockDone;
  const billingSeconds = (Date.now() - advanceAt) / 1000;
  note('renewal day done', { renewed: await progress(), seconds: billingSeconds });

  // The settlement day: opened, gathered and approved through the operator API while the other worker dies.
  const dayStarted = Date.now();
  let dayAnswered = false;
  const day = api(operatorToken, '/v1/operator/settlement-days', {
    method: 'POST',
    json: { livemode: false },
  });
  void day.then(() => (dayAnswered = true));
  await new Promise((r) => setTimeout(r, 500));
  const dayInFlight = !dayAnswered;
  const killed = await killHard(cluster.workers[1]!);
  const dayFault = { fault: 'kill -9 worker-2 during the settlement day', inFlight: dayInFlight, ...killed };
  faults.push(dayFault);
  note('FAULT kill -9 worker-2', dayFault);
  const dayRes = await day;
  if (dayRes.status !== 200) throw new Error(`settlement day: ${JSON.stringify(dayRes.body)}`);
  const runRef = (dayRes.body.runs as { id: string; merchant: string }[]).find(
    (r) => r.merchant === merchantId,
  );
  let runStatus: string | null = null;
  if (runRef) {
    for (;;) {
      const r = await api(key, `/v1/settlement-runs/${runRef.id}`);
      runStatus = r.body?.status ?? null;
      if (runStatus !== 'open') break;
      await new Promise((res) => setTimeout(res, 500));
    }
    const approved = await api(operatorToken, `/v1/operator/settlement-runs/${runRef.id}/approve`, {
      method: 'POST',
      json: {},
    });
    note('settlement run approved', {
      run: runRef.id,
      status: approved.status,
      runStatus: approved.body?.status,
    });
    for (let i = 0; i < 240; i++) {
      const r = await api(key, `/v1/settlement-runs/${runRef.id}`);
      runStatus = r.body?.status ?? null;
      if (runStatus === 'submitted' || runStatus === 'paid' || runStatus === 'failed') break;
      await new Promise((res) => setTimeout(res, 500));
    }
  }
  note('settlement day done', {
    run: runRef?.id,
    status: runStatus,
    seconds: (Date.now() - dayStarted) / 1000,
  });

  // Every delivery out before counting (the channel retries what failed while the faults were on).
  const deliveriesStarted = Date.now();
  for (let i = 0; i < 1200; i++) {
    const left = await knex
      .raw<{ rows: { n: string }[] }>(
        `select count(*) as n from webhook_deliveries where merchant_id = ? and status <> 'succeeded'`,
        [merchantId],
      )
      .then((r) => Number(r.rows[0]!.n));
    if (left === 0 && receiver.counts().events >= 2 * N) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  trafficOn = false;
  await trafficLoop;
  note('deliveries drained', {
    seconds: (Date.now() - deliveriesStarted) / 1000,
    receiver: receiver.counts(),
  });

  // The surfaces again after the faults: a restarted API process shares the limits as the first did.
  await surfacesThroughLoadBalancer(cluster, api, key, checks, 'after the faults');

  const temporalUrl = new URL(cluster.databaseUrl);
  temporalUrl.pathname = '/temporal';
  const temporalDb = createKnex(temporalUrl.toString(), { poolMax: 1 });
  checks.push(await checkShards(temporalDb, 4).finally(() => temporalDb.destroy()));
  const books = await checkBooks(knex, {
    merchantId,
    n: N,
    unitAmount: UNIT_AMOUNT,
    runId: runRef?.id ?? null,
  });
  lastAuthorizations = books.authorizations;
  checks.push(...books.checks);
  const rc = receiver.counts();
  checks.push({ name: 'webhook events received', ok: rc.events === 2 * N, expected: 2 * N, found: rc });
  checks.push({
    name: 'every fault injected with work in flight',
    ok: faults.every((f) => f.inFlight === true),
    expected: faults.map((f) => ({ [String(f.fault)]: true })),
    found: faults.map((f) => ({ [String(f.fault)]: f.inFlight })),
  });
  checks.push({
    name: 'settlement run submitted or paid',
    ok: runStatus === 'submitted' || runStatus === 'paid',
    expected: 'submitted | paid',
    found: runStatus,
  });
  for (const c of checks) note(c.ok ? 'check ok' : 'CHECK FAILED', c);
  Object.assign(summary, {
    billingSeconds,
    renewalsPerSecond: Math.round(N / billingSeconds),
    faults,
    clientTraffic: traffic,
    loadBalancer: cluster.loadBalancer.counts(),
    restarts: Object.fromEntries(
      [...cluster.apis, ...cluster.workers, cluster.temporal].map((p) => [p.name, p.starts() - 1]),
    ),
    receiver: rc,
    load: os.loadavg(),
  });
}

/** kill -9, then wait for the supervisor's new incarnation to be ready. */
async function killHard(p: SupervisedProcess): Promise<Record<string, unknown>> {
  const pid = p.pid();
  const starts = p.starts();
  if (pid === undefined) throw new Error(`${p.name} is not running`);
  process.kill(pid, 'SIGKILL');
  while (p.starts() === starts) await new Promise((r) => setTimeout(r, 100));
  await p.ready();
  return { process: p.name, killedPid: pid, newPid: p.pid() };
}

/**
 * Rate limits and `/mcp` through the load balancer: the device flow's per-address limit (10 an hour here) counted
 * across both API processes (round robin alternates them), the address the balancer saw, not one the client wrote
 * in X-Forwarded-For; and an MCP client's tool call.
 */
async function surfacesThroughLoadBalancer(
  cluster: Cluster,
  api: (token: string, p: string, init?: { method?: string; json?: unknown }) => Promise<Call>,
  key: string,
  checks: Check[],
  when = 'before the faults',
): Promise<void> {
  const before = cluster.loadBalancer.counts().byBackend;
  const statuses: number[] = [];
  for (let i = 0; i < 12; i++) {
    const res = await fetch(`${cluster.url}/v1/device/authorize`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': `203.0.113.${i + 1}` },
      body: JSON.stringify({ client_name: 'skil-cli' }),
    });
    statuses.push(res.status);
  }
  const after = cluster.loadBalancer.counts().byBackend;
  const served = Object.keys(after).filter((b) => (after[b] ?? 0) > (before[b] ?? 0)).length;
  const expected =
    when === 'before the faults' ? { ok: 10, limited: 2, backends: 2 } : { ok: 0, limited: 12, backends: 2 };
  const found = {
    ok: statuses.filter((s) => s === 200).length,
    limited: statuses.filter((s) => s === 429).length,
    backends: served,
  };
  checks.push({
    name: `device-flow rate limit shared by both APIs through the load balancer, ${when}`,
    ok: JSON.stringify(expected) === JSON.stringify(found),
    expected,
    found,
  });
  const mcp = await connectMcp(cluster.url, key);
  try {
    const answer = await callTool(mcp, 'list_payment_intents', { limit: 3 });
    const tools = (await mcp.listTools()).tools.length;
    checks.push({
      name: `/mcp through the load balancer, ${when}`,
      ok: answer.ok && tools > 0,
      expected: { ok: true },
      found: { ok: answer.ok, tools },
    });
  } finally {
    await mcp.close();
  }
  // The same count from the API's point of view: it is one client address however the header was forged.
  const v1 = await api(key, '/v1');
  if (v1.status !== 200) throw new Error(`GET /v1 through the load balancer: ${v1.status}`);
}

main().catch((err: unknown) => {
  note('chaos run aborted', { error: err instanceof Error ? err.stack : String(err) });
  process.exit(1);
});
