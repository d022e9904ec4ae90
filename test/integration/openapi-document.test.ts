import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { parse as parseYaml } from 'yaml';
import { startTestStack, type TestStack } from '../helpers/stack';
import { NETWORK_ATTEMPT, writeNoNetworkPreload } from '../helpers/no-network';

// Issue 16.6, decision 0109: an OpenAPI document that client generators accept, linted by a
// third-party linter (Redocly CLI, recommended rules) that runs offline.

let stack: TestStack;
let doc: any;

beforeAll(async () => {
  stack = await startTestStack({ worker: false });
  doc = (await stack.api(null, '/v1/openapi.json')).body;
});
afterAll(async () => {
  await stack.stop();
});

const METHODS = ['get', 'post', 'patch', 'put', 'delete'];
function operations(): { method: string; path: string; op: any }[] {
  return Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([p, item]) =>
    Object.entries(item)
      .filter(([m]) => METHODS.includes(m))
      .map(([method, op]) => ({ method, path: p, op })),
  );
}

test('every operation has an operationId, and no two share one', () => {
  const ids = operations().map((o) => o.op.operationId as string);
  expect(ids.every((id) => typeof id === 'string' && /^[A-Za-z][A-Za-z0-9]*$/.test(id))).toBe(true);
  const seen = new Map<string, number>();
  for (const id of ids) seen.set(id, (seen.get(id) ?? 0) + 1);
  expect([...seen].filter(([, n]) => n > 1).map(([id]) => id)).toEqual([]);
});

test('one security scheme, HTTP bearer, on every keyed operation; the system endpoints declare none', async () => {
  // Spec §5.1 and decision 0204: bearer is the declared scheme; x-api-key (§5.3) is named in its
  // description, not declared as a second scheme.
  expect(Object.keys(doc.components.securitySchemes)).toEqual(['bearerAuth']);
  expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
  expect(doc.components.securitySchemes.bearerAuth.description).toContain('x-api-key');
  expect(doc.security).toEqual([{ bearerAuth: [] }]);
  for (const p of ['/health', '/ready', '/metrics', '/v1'])
    expect({ p, security: doc.paths[p].get.security }).toEqual({ p, security: [] });
  // The spec's own example of a keyed operation, and every other operation: bearer or nothing.
  expect(doc.paths['/v1/merchant/theme/'].get.security).toEqual([{ bearerAuth: [] }]);
  expect(doc.paths['/v1/merchant/theme/'].patch.security).toEqual([{ bearerAuth: [] }]);
  const keyed = operations().filter(({ op }) => op.security.length > 0);
  expect(keyed.length).toBeGreaterThan(50);
  for (const { method, path: p, op } of operations())
    expect({ op: `${method} ${p}`, security: op.security }).toEqual({
      op: `${method} ${p}`,
      security: op.security.length === 0 ? [] : [{ bearerAuth: [] }],
    });
  // Declared operations that take no key answer without one; keyed ones refuse a request without,
  // and accept the key in either header.
  expect((await stack.api(null, '/ready')).status).not.toBe(401);
  const m = await stack.merchant();
  expect((await stack.api(null, '/v1/merchant')).status).toBe(401);
  expect((await stack.api(m.testKey, '/v1/merchant')).status).toBe(200);
  expect((await stack.api(null, '/v1/merchant', { headers: { 'x-api-key': m.testKey } })).status).toBe(200);
});

test('checkout sessions are documented once, under the paths the spec writes', () => {
  expect(doc.paths['/v1/checkout/sessions/']?.post).toBeDefined();
  expect(doc.paths['/v1/checkout/sessions/{id}']?.get).toBeDefined();
  expect(doc.paths['/v1/checkout/sessions']).toBeUndefined();
  expect(doc.paths['/v1/checkout/sessions/{id}/']).toBeUndefined();
});

test('the paths without the trailing slash still answer, as aliases', async () => {
  const m = await stack.merchant();
  const created = await stack.api(m.testKey, '/v1/checkout/sessions', {
    method: 'POST',
    json: { amount: 1000 },
  });
  expect(created.status).toBe(200);
  expect((await stack.api(m.testKey, `/v1/checkout/sessions/${created.body.id}/`)).status).toBe(200);
  expect((await stack.api(m.testKey, '/v1/checkout/sessions')).body.data).toHaveLength(1);
});

test("x-tagGroups are the spec's groups (§1), then Merchant, Device Auth and Events", () => {
  const groups = doc['x-tagGroups'] as { name: string; tags: string[] }[];
  const spec: [string, string[]][] = [
    ['Payments', ['Checkout Sessions', 'Payment Intents', 'Payment Methods', 'Payment Links']],
    ['Customers', ['Customers', 'Subscriptions', 'Billing Portal']],
    ['Catalog', ['Products', 'Coupons', 'Promotion Codes']],
    ['Platform', ['Notification Channels', 'Claims', 'Delivery']],
    ['System', ['SDK', 'Health', 'Meta']],
  ];
  expect(groups.slice(0, 5).map((g) => g.name)).toEqual(spec.map(([name]) => name));
  for (const [name, tags] of spec) {
    const group = groups.find((g) => g.name === name)!;
    // The spec's tags first, in its order; tags it does not name follow (decision 0109).
    expect(group.tags.slice(0, tags.length)).toEqual(tags);
  }
  const grouped = groups.flatMap((g) => g.tags);
  for (const tag of [
    'Merchant',
    'Device Auth',
    'Events',
    'Prices',
    'Refunds',
    'Test Clocks',
    'Settlement Runs',
  ])
    expect(grouped).toContain(tag);
  // Every tag in exactly one group, every tag defined with a description, every operation's tag grouped.
  expect(new Set(grouped).size).toBe(grouped.length);
  const defined = new Map((doc.tags as { name: string; description: string }[]).map((t) => [t.name, t]));
  expect([...defined.keys()].sort()).toEqual([...grouped].sort());
  for (const t of defined.values()) expect(t.description.length).toBeGreaterThan(10);
  for (const { method, path: p, op } of operations()) {
    expect({ op: `${method} ${p}`, tags: op.tags }).toEqual({
      op: `${method} ${p}`,
      tags: [expect.any(String)],
    });
    expect(grouped).toContain(op.tags[0]);
  }
});

test('each operation documents its error statuses one by one, in the error envelope', () => {
  const missing: string[] = [];
  for (const { method, path: p, op } of operations()) {
    const expected: string[] = [];
    if (op.security === undefined || op.security.length > 0) expected.push('401', '429');
    if (op.requestBody) expected.push('400', '413', '415');
    if ((op.parameters ?? []).some((x: any) => x.in === 'query')) expected.push('400');
    if (/\{\w+\}/.test(p)) expected.push('404');
    if (['post', 'patch'].includes(method) && op.security?.length !== 0) expected.push('409');
    for (const status of expected) {
      const res = op.responses[status];
      const ref = res?.$ref ?? res?.content?.['application/json']?.schema?.$ref;
      if (
        !res ||
        !(ref === '#/components/schemas/Error' || String(ref).startsWith('#/components/responses/'))
      )
        missing.push(`${method} ${p} ${status}`);
    }
    if (!op.responses.default) missing.push(`${method} ${p} default`);
  }
  expect(missing).toEqual([]);
  for (const [name, response] of Object.entries(doc.components.responses as Record<string, any>))
    expect({ name, ref: response.content['application/json'].schema.$ref }).toEqual({
      name,
      ref: '#/components/schemas/Error',
    });
  // The spec's statuses for the theme (§4.3).
  expect(Object.keys(doc.paths['/v1/merchant/theme/'].patch.responses)).toEqual(
    expect.arrayContaining(['200', '400', '404', '409', '422']),
  );
  expect(Object.keys(doc.paths['/v1/merchant/theme/'].get.responses)).toContain('404');
  // Rate limits (decision 0110): per key on every authenticated operation, per client address on the
  // device flow and the browser SDK; never on /health, /ready, /metrics.
  for (const [p, m] of [
    ['/v1/device/authorize', 'post'],
    ['/v1/device/token', 'get'],
    ['/v1/skil.js', 'get'],
  ] as const)
    expect({ p, statuses: Object.keys(doc.paths[p][m].responses) }).toEqual({
      p,
      statuses: expect.arrayContaining(['429']),
    });
  for (const p of ['/health', '/ready', '/metrics'])
    expect({ p, statuses: Object.keys(doc.paths[p].get.responses) }).toEqual({
      p,
      statuses: expect.not.arrayContaining(['429']),
    });
});

test('the browser SDK /v1/skil.js is documented, and is what the path serves', async () => {
  const op = doc.paths['/v1/skil.js']?.get;
  expect(op).toBeDefined();
  expect(op.tags).toEqual(['SDK']);
  expect(op.security).toEqual([]);
  expect(Object.keys(op.responses['200'].content)).toEqual(['application/javascript']);
  const res = await stack.api(null, '/v1/skil.js');
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^application\/javascript/);
  // The other non-JSON answers are documented with their own media types too.
  expect(Object.keys(doc.paths['/metrics'].get.responses['200'].content)).toEqual(['text/plain']);
  expect(Object.keys(doc.paths['/v1/settlement-runs/{id}/lines.csv'].get.responses['200'].content)).toEqual([
    'text/csv',
  ]);
});

const ROOT = path.resolve(__dirname, '..', '..');

test('the lint exemptions are only the trailing slashes the spec itself writes', () => {
  const ignore = parseYaml(readFileSync(path.join(ROOT, '.redocly.lint-ignore.yaml'), 'utf8')) as Record<
    string,
    Record<string, string[]>
  >;
  expect(ignore).toEqual({
    'openapi.json': {
      'no-path-trailing-slash': [
        '#/paths/~1v1~1merchant~1theme~1',
        '#/paths/~1v1~1checkout~1sessions~1',
        // Spec §4.7: POST /api/v1/<platform>/webhook/.
        '#/paths/~1api~1v1~1{platform}~1webhook~1',
      ],
    },
  });
});

test('Redocly CLI lints the document with its recommended rules: no errors, and no network use', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'skil-openapi-lint-'));
  writeFileSync(path.join(dir, 'openapi.json'), JSON.stringify(doc, null, 2));
  copyFileSync(path.join(ROOT, 'redocly.yaml'), path.join(dir, 'redocly.yaml'));
  copyFileSync(path.join(ROOT, '.redocly.lint-ignore.yaml'), path.join(dir, '.redocly.lint-ignore.yaml'));
  const cli = require.resolve('@redocly/cli/bin/cli.js');
  const preload = writeNoNetworkPreload(dir);
  // The guard itself works: a fetch and a connection under it are refused and reported.
  const probe = await promisify(execFile)(process.execPath, [
    '--require',
    preload,
    '-e',
    "fetch('http://127.0.0.1:9/').catch(() => {}); require('node:net').connect(9, '127.0.0.1').on('error', () => {});",
  ]);
  expect(probe.stderr.split(NETWORK_ATTEMPT).length - 1).toBe(2);
  const args = ['--require', preload, cli, 'lint', 'openapi.json', '--format=json', '--max-problems=10000'];
  // Exit code 1 is "problems found"; the JSON says which.
  const run = await promisify(execFile)(process.execPath, args, {
    cwd: dir,
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_NOTIFICATIONS: 'true', NO_COLOR: '1' },
    maxBuffer: 64 * 1024 * 1024,
  }).catch((err: { stdout: string; stderr: string; code: number }) => err);
  expect(run.stderr).not.toContain(NETWORK_ATTEMPT);
  const report = JSON.parse(run.stdout) as {
    problems: {
      ruleId: string;
      severity: string;
      message: string;
      ignored?: boolean;
      location: { pointer: string }[];
    }[];
  };
  const errors = report.problems
    .filter((p) => p.severity === 'error' && !p.ignored)
    .map((p) => `${p.ruleId} ${p.location[0]?.pointer}: ${p.message}`);
  expect(errors).toEqual([]);
  const warnings = report.problems
    .filter((p) => p.severity === 'warn' && !p.ignored)
    .map((p) => `${p.ruleId} ${p.location[0]?.pointer}`);
  // Warnings allowed (decision 0109): the test server's URL is localhost, and the system operations
  // that take no input, need no key and are not rate limited have no 4xx to document.
  const inputless = ['/health', '/ready', '/metrics', '/v1', '/v1/openapi.json'];
  expect(warnings.sort()).toEqual(
    [
      'no-server-example.com #/servers/0/url',
      ...inputless.map((p) => `operation-4xx-response #/paths/${p.replace(/\//g, '~1')}/get/responses`),
    ].sort(),
  );
});
