import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { appendFile, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from '../../stack/free-port';
import { killHard } from '../helpers/worker-process';
import { createHttpCardAcquirer } from '../../adapters/acquirers/http-card-acquirer';
import { AcquirerCardError, AcquirerUnavailableError } from '../../adapters/acquirers/card-acquirer';
import { startTestAcquirer } from '../helpers/acquirer';

/**
 * The real HTTP client against the simulated acquirer service (decision 0102): latency, timeouts,
 * retries, replay, and its own durable state across restarts.
 */

async function serve(latencyMs: number) {
  const acquirer = await startTestAcquirer({ latencyMs });
  return { base: acquirer.url, acquirer, close: () => acquirer.stop() };
}

const card = (number: string) => ({ number, exp_month: 12, exp_year: 2034, cvc: '123' });

test('configurable latency delays every answer; a timeout is retryable and ends as unavailable', async () => {
  const sim = await serve(150);
  try {
    const client = createHttpCardAcquirer({ baseUrl: sim.base });
    const started = Date.now();
    const token = await client.tokenize(card('4242424242424242'));
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    expect(token).toMatchObject({
      brand: 'visa',
      last4: '4242',
      exp_month: 12,
      exp_year: 2034,
      wallet: null,
    });
    expect(JSON.stringify(token)).not.toContain('4242424242424242');

    const impatient = createHttpCardAcquirer({
      baseUrl: sim.base,
      timeoutMs: 40,
      maxRetries: 1,
      backoffMs: () => 1,
    });
    await expect(impatient.tokenize(card('4242424242424242'))).rejects.toBeInstanceOf(
      AcquirerUnavailableError,
    );
  } finally {
    await sim.close();
  }
});

test('card errors are final; the processing-error card succeeds on the retry; keys replay', async () => {
  const sim = await serve(0);
  try {
    const client = createHttpCardAcquirer({ baseUrl: sim.base, backoffMs: () => 1 });
    await expect(client.tokenize({ ...card('4242424242424241') })).rejects.toBeInstanceOf(AcquirerCardError);
    await expect(client.tokenize({ ...card('4242424242424242'), exp_year: 2001 })).rejects.toMatchObject({
      code: 'expired_card',
      retryable: false,
    });

    const noRetry = createHttpCardAcquirer({ baseUrl: sim.base, maxRetries: 0 });
    const flaky = await client.tokenize(card('4000000000000119'));
    const req = {
      token: flaky.token,
      amount: 500,
      currency: 'ISK' as const,
      merchant: 'acct_1',
      return_url: '',
    };
    await expect(noRetry.authorize({ ...req, idempotency_key: 'k1' })).rejects.toMatchObject({
      code: 'processing_error',
      retryable: true,
    });
    expect(await client.authorize({ ...req, idempotency_key: 'k2' })).toMatchObject({ status: 'authorized' });

    const ok = await client.tokenize(card('4242424242424242'));
    const a1 = await client.authorize({ ...req, token: ok.token, idempotency_key: 'same' });
    const a2 = await client.authorize({ ...req, token: ok.token, idempotency_key: 'same' });
    expect(a2.id).toBe(a1.id);
    const c1 = await client.capture({ authorization: a1.id, amount: 500, idempotency_key: 'cap' });
    const c2 = await client.capture({ authorization: a1.id, amount: 500, idempotency_key: 'cap' });
    expect([c1.status, c2.status, c2.amount_captured]).toEqual(['captured', 'captured', 500]);
    const r = await client.refund({ authorization: a1.id, amount: 300, idempotency_key: 'r1' });
    expect(await client.refund({ authorization: a1.id, amount: 300, idempotency_key: 'r1' })).toEqual(r);
    await expect(
      client.refund({ authorization: a1.id, amount: 300, idempotency_key: 'r2' }),
    ).rejects.toMatchObject({ retryable: false });
  } finally {
    await sim.close();
  }
});

test('its state survives a restart: 3-D Secure, capture, refunds, the processing-error retry and key replay', async () => {
  const sim = await serve(0);
  try {
    const client = createHttpCardAcquirer({ baseUrl: sim.base, backoffMs: () => 1 });
    const noRetry = createHttpCardAcquirer({ baseUrl: sim.base, maxRetries: 0 });
    const req = {
      amount: 9000,
      currency: 'ISK' as const,
      merchant: 'acct_1',
      return_url: 'https://shop.example/back',
    };
    const ok = await client.tokenize(card('4242424242424242'));
    const secure = await client.tokenize(card('4000000000003220'));
    const flaky = await client.tokenize(card('4000000000000119'));

    const paid = await client.authorize({ ...req, token: ok.token, idempotency_key: 'paid' });
    await client.capture({ authorization: paid.id, amount: 9000, idempotency_key: 'paid:capture' });
    await client.refund({ authorization: paid.id, amount: 4000, idempotency_key: 'paid:r1' });
    const challenged = await client.authorize({ ...req, token: secure.token, idempotency_key: 'challenged' });
    expect(challenged).toMatchObject({
      status: 'requires_action',
      action_url: `${sim.base}/3ds/${challenged.id}`,
    });
    await expect(
      noRetry.authorize({ ...req, token: flaky.token, idempotency_key: 'flaky' }),
    ).rejects.toMatchObject({
      code: 'processing_error',
    });

    await sim.acquirer.restart();

    // The challenge page of an authorization made before the restart, completed after it.
    expect((await fetch(challenged.action_url!)).status).toBe(200);
    const done = await fetch(challenged.action_url!, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'outcome=complete',
      redirect: 'manual',
    });
    expect(done.status).toBe(303);
    expect(done.headers.get('location')).toBe('https://shop.example/back');
    expect(await client.retrieve(challenged.id)).toMatchObject({ status: 'authorized', action_url: null });
    expect(
      await client.capture({ authorization: challenged.id, amount: 9000, idempotency_key: 'c:cap' }),
    ).toMatchObject({
      status: 'captured',
    });

    // What was captured and refunded before the restart still bounds the next refund.
    expect(await client.retrieve(paid.id)).toMatchObject({ amount_captured: 9000, amount_refunded: 4000 });
    await expect(
      client.refund({ authorization: paid.id, amount: 5001, idempotency_key: 'paid:r2' }),
    ).rejects.toMatchObject({ code: 'refund_exceeds', retryable: false });
    expect(
      await client.refund({ authorization: paid.id, amount: 5000, idempotency_key: 'paid:r3' }),
    ).toMatchObject({
      amount: 5000,
    });
    // Keys answered before the restart replay the same answer; the failed-once key now succeeds.
    expect((await client.authorize({ ...req, token: ok.token, idempotency_key: 'paid' })).id).toBe(paid.id);
    expect(await noRetry.authorize({ ...req, token: flaky.token, idempotency_key: 'flaky' })).toMatchObject({
      status: 'authorized',
    });
  } finally {
    await sim.close();
  }
});

test('a torn last journal line (a crash mid-write) is ignored; every answered change is kept', async () => {
  const sim = await serve(0);
  try {
    const client = createHttpCardAcquirer({ baseUrl: sim.base });
    const ok = await client.tokenize(card('4242424242424242'));
    const auth = await client.authorize({
      token: ok.token,
      amount: 700,
      currency: 'ISK',
      merchant: 'acct_1',
      return_url: '',
      idempotency_key: 'torn',
    });
    await client.capture({ authorization: auth.id, amount: 700, idempotency_key: 'torn:capture' });
    const journal = path.join(sim.acquirer.dataDir, 'acquirer-journal.jsonl');
    expect((await readFile(journal, 'utf8')).trim().split('\n')).toHaveLength(2);
    await appendFile(journal, '{"authorizations":[{"id":"auth_');
    await sim.acquirer.restart();
    expect(await client.retrieve(auth.id)).toMatchObject({ status: 'captured', amount_captured: 700 });
    // Compacted at start: the journal begins empty again.
    expect(await readFile(journal, 'utf8')).toBe('');
  } finally {
    await sim.close();
  }
});

test('concurrent refunds never exceed the capture, and concurrent requests with one key authorize once', async () => {
  const sim = await serve(0);
  try {
    const client = createHttpCardAcquirer({ baseUrl: sim.base, maxRetries: 0 });
    const ok = await client.tokenize(card('4242424242424242'));
    const req = {
      token: ok.token,
      amount: 1000,
      currency: 'ISK' as const,
      merchant: 'acct_1',
      return_url: '',
    };
    const same = await Promise.all(
      Array.from({ length: 10 }, () => client.authorize({ ...req, idempotency_key: 'one' })),
    );
    expect(new Set(same.map((a) => a.id)).size).toBe(1);
    await client.capture({ authorization: same[0]!.id, amount: 1000, idempotency_key: 'one:capture' });
    const outcomes = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) =>
        client.refund({ authorization: same[0]!.id, amount: 100, idempotency_key: `r${i}` }),
      ),
    );
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(10);
    expect(await client.retrieve(same[0]!.id)).toMatchObject({ amount_refunded: 1000 });
  } finally {
    await sim.close();
  }
});

/** The acquirer's own process (`npm run simulated-acquirer`), up once it says so. */
async function spawnAcquirer(dataDir: string, port: number): Promise<ChildProcess> {
  const root = path.resolve(__dirname, '..', '..');
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(root, 'simulators', 'acquirer', 'main.ts')],
    {
      cwd: root,
      env: { ...process.env, DATA_DIR: dataDir, SIMULATED_ACQUIRER_PORT: String(port), LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the acquirer did not start:\n${output}`)), 60_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('simulated acquirer running')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the acquirer exited with ${code}:\n${output}`));
    });
  });
  return child;
}

test('SIGKILL mid-stream: every capture it answered is there after a restart, and the keys it answered replay', async () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'skil-acquirer-kill-'));
  const port = await freePort();
  let child = await spawnAcquirer(dataDir, port);
  try {
    const client = createHttpCardAcquirer({
      baseUrl: `http://127.0.0.1:${port}`,
      maxRetries: 0,
      timeoutMs: 5_000,
    });
    const { token } = await client.tokenize(card('4242424242424242'));
    const answered: { key: string; authorization: string; amount: number }[] = [];
    let stop = false;
    let n = 0;
    const lane = async () => {
      while (!stop) {
        const key = `kill-${n++}`;
        const amount = 100 + (n % 900);
        try {
          const auth = await client.authorize({
            token,
            amount,
            currency: 'ISK',
            merchant: 'acct_1',
            return_url: '',
            idempotency_key: key,
          });
          await client.capture({ authorization: auth.id, amount, idempotency_key: `${key}:capture` });
          answered.push({ key, authorization: auth.id, amount });
        } catch {
          return; // the process is gone: what it answered is what counts
        }
      }
    };
    const lanes = Array.from({ length: 8 }, lane);
    // Kill it once it has answered some, at a moment the lanes do not choose.
    while (answered.length < 50) await new Promise((r) => setTimeout(r, 5));
    await new Promise((r) => setTimeout(r, Math.random() * 100));
    await killHard(child);
    stop = true;
    await Promise.all(lanes);
    expect(answered.length).toBeGreaterThanOrEqual(50);

    child = await spawnAcquirer(dataDir, port);
    for (const a of answered)
      expect(await client.retrieve(a.authorization)).toMatchObject({
        status: 'captured',
        amount_captured: a.amount,
      });
    const last = answered.at(-1)!;
    const replay = await client.authorize({
      token,
      amount: last.amount,
      currency: 'ISK',
      merchant: 'acct_1',
      return_url: '',
      idempotency_key: last.key,
    });
    expect(replay.id).toBe(last.authorization);
  } finally {
    await killHard(child);
    await rm(dataDir, { recursive: true, force: true });
  }
});
