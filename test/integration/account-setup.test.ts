import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { startTestStack, type TestStack } from '../helpers/stack';
import { WebClient } from '../helpers/accounts';
import { ensureDemoMerchant } from '../../stack/seed-demo';

const run = promisify(execFile);
let stack: TestStack;
let dir: string;

beforeAll(async () => {
  stack = await startTestStack({ worker: false });
  dir = await mkdtemp(path.join(os.tmpdir(), 'skil-seed-'));
});
afterAll(async () => {
  await stack.stop();
  await rm(dir, { recursive: true, force: true });
});

describe('demo merchant (npm start)', () => {
  test('gets a dashboard user whose credentials are kept in demo.env, and kept across starts', async () => {
    const first = await ensureDemoMerchant(stack.knex, dir);
    expect(first.created).toBe(true);
    expect(first.dashboardEmail).toBe('demo@skil.test');
    const env = await readFile(path.join(dir, 'demo.env'), 'utf8');
    expect(env).toContain(`SKIL_DASHBOARD_EMAIL=${first.dashboardEmail}\n`);
    expect(env).toContain(`SKIL_DASHBOARD_PASSWORD=${first.dashboardPassword}\n`);
    const web = new WebClient(stack.url);
    expect((await web.signIn(first.dashboardEmail, first.dashboardPassword)).location).toBe(
      '/dashboard/home',
    );
    expect((await web.get('/dashboard/profile')).text).toContain('Demo merchant');

    const again = await ensureDemoMerchant(stack.knex, dir);
    expect(again).toEqual({ ...first, created: false });
  });

  test('a demo.env written before dashboard users existed gets one added', async () => {
    const old = await ensureDemoMerchant(stack.knex, dir);
    await writeFile(
      path.join(dir, 'demo.env'),
      `SKIL_MERCHANT_ID=${old.merchantId}\nSKIL_API_KEY=${old.testKey}\n`,
    );
    const upgraded = await ensureDemoMerchant(stack.knex, dir);
    expect(upgraded).toMatchObject({ merchantId: old.merchantId, testKey: old.testKey, created: false });
    expect(upgraded.dashboardEmail).toMatch(/^demo\+[a-z0-9]{6}@skil\.test$/);
    const web = new WebClient(stack.url);
    expect((await web.signIn(upgraded.dashboardEmail, upgraded.dashboardPassword)).status).toBe(303);
  });
});

describe('npm run operator:create', () => {
  test('creates an operator with a password and an API token, shown once', async () => {
    const tsx = path.resolve(__dirname, '../../node_modules/.bin/tsx');
    const cli = path.resolve(__dirname, '../../stack/operator-create.ts');
    const env = { ...process.env, DATABASE_URL: stack.db.url, LOG_LEVEL: 'silent' };
    const { stdout } = await run(tsx, [cli, '--email', 'Ops@Example.test', '--name', 'Ops'], { env });
    const password = /Password {4}(\S+)/.exec(stdout)![1]!;
    const token = /API token {3}(op_[0-9A-Za-z]{40})/.exec(stdout)![1]!;
    const row = await stack.knex('users').where({ email: 'ops@example.test' }).first();
    expect(row).toMatchObject({ kind: 'operator', merchant_id: null });
    expect(JSON.stringify(await stack.knex('operator_tokens').select('*'))).not.toContain(token);

    const m = await stack.merchant();
    const viaApi = await stack.api(token, `/v1/operator/merchants/${m.id}`);
    expect(viaApi.status).toBe(200);
    const web = new WebClient(stack.url);
    expect((await web.signIn('ops@example.test', password)).location).toBe('/dashboard/operator');

    await expect(run(tsx, [cli, '--email', 'ops@example.test'], { env })).rejects.toThrow(/exists already/);
    await expect(run(tsx, [cli], { env })).rejects.toThrow(/usage/);
  });
});
