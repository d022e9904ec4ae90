import type { Browser } from 'playwright-core';
import { sharedTestStack, type TestMerchant, type TestStack } from '../helpers/stack';
import { createMerchantUser, WebClient, type TestUser } from '../helpers/accounts';
import { launchChromium, openPage } from '../helpers/browser';
import { accessibilityFindings } from '../helpers/accessibility';
import { randomBase62 } from '../../domain/ids';
import { connectMcp, ok } from '../helpers/mcp';

/**
 * The merchant's audit log (decision 0227), through the API and the dashboard as a merchant uses
 * them: every write the test makes appears once with its actor, its address, its object and its
 * change without secrets; a refused write, a replay and a read leave nothing; another merchant's
 * entries are never shown or exported; the page reads at 390 and 1280 px with no axe finding; a
 * member ends another of their sessions.
 */
let stack: TestStack;
let browser: Browser;
let a: TestMerchant;
let b: TestMerchant;
let ownerA: TestUser;
let ownerB: TestUser;

beforeAll(async () => {
  [stack, browser] = await Promise.all([sharedTestStack(), launchChromium()]);
  [a, b] = await Promise.all([stack.merchant('Skrá A'), stack.merchant('Skrá B')]);
  [ownerA, ownerB] = await Promise.all([
    createMerchantUser(stack.knex, a.id, 'owner'),
    createMerchantUser(stack.knex, b.id, 'owner'),
  ]);
});
afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

/** The CSV export as rows of named cells (every cell quoted, CRLF line ends). */
function parseCsv(text: string): Record<string, string>[] {
  // Every named cell is present in every row: the header and the rows have the same columns.
  const lines = text.trimEnd().split('\r\n');
  const cells = (line: string) =>
    [...line.matchAll(/"((?:[^"]|"")*)"(?:,|$)/g)].map((m) => m[1]!.replace(/""/g, '"'));
  const header = cells(lines[0]!);
  return lines.slice(1).map((l) => Object.fromEntries(cells(l).map((c, i) => [header[i]!, c])));
}

async function keyId(merchantId: string, livemode: boolean): Promise<string> {
  const row = await stack
    .knex('api_keys')
    .where({ merchant_id: merchantId, livemode })
    .orderBy('created_at')
    .first('id');
  return row.id as string;
}

test('every write through the API and the dashboard appears once with its actor; the other merchant’s never', async () => {
  const hooked = `whsec-check-${randomBase62(6)}`;
  // Writes through the API, with the test key and the live key.
  const created = await stack.api(a.testKey, '/v1/customers', {
    method: 'POST',
    json: { name: 'Guðrún', email: 'gudrun@example.test', metadata: { note: hooked } },
  });
  expect(created.status).toBe(200);
  const customer = created.body.id as string;
  expect(
    (await stack.api(a.testKey, `/v1/customers/${customer}`, { method: 'PATCH', json: { name: 'Anna' } }))
      .status,
  ).toBe(200);
  const product = await stack.api(a.testKey, '/v1/products', {
    method: 'POST',
    json: { name: 'Bolli', vat_rate: 24, default_price_data: { unit_amount: 1500 } },
  });
  expect(product.status).toBe(200);
  // A write that records no event (a channel), whose answer holds its signing secret.
  const channel = await stack.api(a.testKey, '/v1/notification-channels', {
    method: 'POST',
    json: {
      type: 'webhook',
      config: { url: 'http://127.0.0.1:9/hook' },
      event_subscriptions: ['debug.check'],
    },
  });
  expect(channel.status).toBe(200);
  const signingSecret = channel.body.config.secret as string;
  // An idempotent write sent twice: one change, one entry.
  const idem = { 'idempotency-key': `audit-${randomBase62(10)}` };
  const once = await stack.api(a.testKey, '/v1/customers', {
    method: 'POST',
    headers: idem,
    json: { name: 'Einu' },
  });
  const again = await stack.api(a.testKey, '/v1/customers', {
    method: 'POST',
    headers: idem,
    json: { name: 'Einu' },
  });
  expect(again.body.id).toBe(once.body.id);
  expect(again.headers.get('idempotent-replayed')).toBe('true');
  // A refused write and a read leave nothing.
  expect(
    (await stack.api(a.testKey, '/v1/customers', { method: 'POST', json: { colour: 'red' } })).status,
  ).toBe(400);
  expect((await stack.api(a.testKey, `/v1/customers/${customer}`)).status).toBe(200);
  const live = await stack.api(a.liveKey, '/v1/customers', { method: 'POST', json: { name: 'Raun' } });
  expect(live.status).toBe(200);
  // Through MCP: a write, the same write replayed by its idempotency key, a dry run and a read.
  const agent = await connectMcp(stack.url, a.testKey);
  const viaMcp = await ok(agent, 'create_customer', { name: 'Umboðsmaður', idempotency_key: 'mcp-1' });
  await ok(agent, 'create_customer', { name: 'Umboðsmaður', idempotency_key: 'mcp-1' });
  await ok(agent, 'create_customer', { name: 'Prufa', dry_run: true });
  await ok(agent, 'list_customers', {});
  await agent.close();
  // The other merchant writes too.
  const other = await stack.api(b.testKey, '/v1/customers', { method: 'POST', json: { name: 'Annar' } });
  expect(other.status).toBe(200);

  // Through the dashboard: the owner creates an API key (its secret is shown once) and, from a
  // second browser, ends the first one's session.
  const first = new WebClient(stack.url);
  expect((await first.signIn(ownerA.email, ownerA.password)).status).toBe(303);
  await first.get('/dashboard/api-keys');
  const made = await first.post('/dashboard/api-keys', { mode: 'test' });
  expect(made.status).toBe(200);
  const shownKey = /sk_test_[0-9A-Za-z]{20,}/.exec(made.text)?.[0];
  expect(shownKey).toBeDefined();
  const second = new WebClient(stack.url);
  expect((await second.signIn(ownerA.email, ownerA.password)).status).toBe(303);
  const sessions = await second.get('/dashboard/sessions');
  expect(sessions.status).toBe(200);
  const firstSession = [
    ...sessions.text.matchAll(/action="\/dashboard\/sessions\/(sess_[0-9A-Za-z]+)\/end"/g),
  ].map((m) => m[1]!);
  expect(firstSession).toHaveLength(1);
  const ended = await second.post(`/dashboard/sessions/${firstSession[0]}/end`, {});
  expect(ended.status).toBe(200);
  // The first browser is signed out.
  expect((await first.get('/dashboard/home')).status).toBe(303);
  // Ending a session that is not one's own (the other merchant's owner's) changes nothing.
  const bClient = new WebClient(stack.url);
  await bClient.signIn(ownerB.email, ownerB.password);
  const bSession = /action="\/dashboard\/sessions\/(sess_[0-9A-Za-z]+)\/end"/.exec(
    (await second.get('/dashboard/sessions')).text,
  );
  expect(bSession).toBeNull();

  // The export, as the owner downloads it.
  const csv = await second.get('/dashboard/audit-log.csv');
  expect(csv.status).toBe(200);
  expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
  const rows = parseCsv(csv.text);
  const testKeyId = await keyId(a.id, false);
  const madeKeyId = (
    await stack.knex('api_keys').where({ merchant_id: a.id }).orderBy('created_at', 'desc').first('id')
  ).id as string;
  const liveKeyId = await keyId(a.id, true);
  const summary = rows
    .map((r) => `${r.mode} ${r.actor_type}:${r.actor_id} ${r.action} ${r.object_id}`)
    .sort();
  expect(summary).toEqual(
    [
      `test api_key:${testKeyId} POST /v1/customers ${customer}`,
      `test api_key:${testKeyId} PATCH /v1/customers/:id ${customer}`,
      `test api_key:${testKeyId} POST /v1/products ${product.body.id}`,
      `test api_key:${testKeyId} POST /v1/notification-channels ${channel.body.id}`,
      `test api_key:${testKeyId} POST /v1/customers ${once.body.id}`,
      `live api_key:${liveKeyId} POST /v1/customers ${live.body.id}`,
      `test api_key:${testKeyId} MCP create_customer ${viaMcp.id}`,
      `test member:${ownerA.id} POST /dashboard/api-keys ${madeKeyId}`,
      `test member:${ownerA.id} POST /dashboard/sessions/:id/end ${firstSession[0]}`,
    ].sort(),
  );
  for (const r of rows) {
    expect(r.client_address).toBe('127.0.0.1');
    expect(r.request_id).toMatch(/^req_/);
  }
  const patch = rows.find((r) => r.action === 'PATCH /v1/customers/:id')!;
  expect(JSON.parse(patch.changes!)).toEqual({ name: 'Anna' });
  expect(
    JSON.parse(rows.find((r) => r.object_id === customer && r.action!.startsWith('POST'))!.changes!),
  ).toEqual({
    name: 'Guðrún',
    email: 'gudrun@example.test',
    metadata: { note: hooked },
  });
  // No secret, no full key, no CSRF token; nothing of the other merchant.
  for (const secret of [signingSecret, shownKey!, a.testKey, a.liveKey, first.csrf() ?? 'none'])
    expect(csv.text).not.toContain(secret);
  expect(csv.text).not.toContain(other.body.id);
  expect(csv.text).not.toContain(await keyId(b.id, false));

  // The other merchant's owner sees only theirs.
  const bCsv = parseCsv((await bClient.get('/dashboard/audit-log.csv')).text);
  expect(bCsv.map((r) => r.object_id)).toEqual([other.body.id]);

  // Append-only: the database itself refuses changing or deleting an entry.
  await expect(
    stack.knex('merchant_audit_entries').where({ merchant_id: a.id }).update({ actor_id: 'x' }),
  ).rejects.toThrow(/append-only/);
  await expect(stack.knex('merchant_audit_entries').where({ merchant_id: a.id }).delete()).rejects.toThrow(
    /append-only/,
  );
});

test('the audit log page searches, pages and reads at 390 and 1280 px with no axe finding, in both languages', async () => {
  const client = await stack.merchant('Síða');
  const owner = await createMerchantUser(stack.knex, client.id, 'owner');
  const ids: string[] = [];
  for (const name of ['Eitt', 'Tvö', 'Þrjú'])
    ids.push((await stack.api(client.testKey, '/v1/customers', { method: 'POST', json: { name } })).body.id);
  const { page, context } = await openPage(browser, stack.url);
  try {
    await page.goto(`${stack.url}/dashboard/sign-in`);
    await page.getByLabel('Email').fill(owner.email);
    await page.getByLabel('Password').fill(owner.password);
    await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Sign in' }).click()]);
    for (const lang of ['en', 'is'] as const)
      for (const width of [390, 1280]) {
        await page.setViewportSize({ width, height: 800 });
        for (const path of ['/dashboard/audit-log', '/dashboard/sessions']) {
          const res = await page.goto(`${stack.url}${path}?lang=${lang}`);
          expect(res!.status()).toBe(200);
          const overflow = await page.evaluate<number>(
            'document.documentElement.scrollWidth - window.innerWidth',
          );
          expect({ path, lang, width, overflow }).toEqual({ path, lang, width, overflow: 0 });
          expect({
            path,
            lang,
            width,
            findings: await accessibilityFindings(page, { everyImpact: true, bestPractices: true }),
          }).toEqual({
            path,
            lang,
            width,
            findings: [],
          });
        }
      }
    // Searching by object shows that object's entry only.
    await page.goto(`${stack.url}/dashboard/audit-log?lang=en&object=${ids[1]}`);
    await expect(page.locator('tr[data-entry]').count()).resolves.toBe(1);
    await expect(page.locator('tr[data-entry]').innerText()).resolves.toContain(ids[1]);
    // The navigation leads to both pages.
    await expect(page.getByRole('link', { name: 'Audit log' }).count()).resolves.toBeGreaterThan(0);
  } finally {
    await context.close();
  }
});
