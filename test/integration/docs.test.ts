import path from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { Browser } from 'playwright-core';
import { sharedTestStack, type TestStack } from '../helpers/stack';
import { launchChromium, openPage, type TestPage } from '../helpers/browser';
import { accessibilityFindings } from '../helpers/accessibility';
import { sidewaysOverflow } from '../helpers/page-checks';
import { runSample, runnableSamples } from '../helpers/doc-samples';
import { GUIDES, GUIDES_DIR, guideHref } from '../../web/docs/guides';

// Decisions 0250-0253 and 0255: the documentation a developer reads. The reference at /docs is
// made from the live OpenAPI document, whose descriptions and examples are held here; the guides'
// runnable samples run against this stack; every page passes the browser checks at 390 and 1280.

let stack: TestStack;
let doc: any;
let browser: Browser;

beforeAll(async () => {
  stack = await sharedTestStack();
  doc = (await stack.api(null, '/v1/openapi.json')).body;
  browser = await launchChromium();
});
afterAll(async () => {
  await stack?.stop();
});

const METHODS = ['get', 'post', 'patch', 'put', 'delete'];
function operations(): { key: string; method: string; path: string; op: any }[] {
  return Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([p, item]) =>
    Object.entries(item)
      .filter(([m]) => METHODS.includes(m))
      .map(([method, op]) => ({ key: `${method.toUpperCase()} ${p}`, method, path: p, op })),
  );
}

test('every operation has a description: what it does, when to use it, the errors it answers', async () => {
  const missing = operations()
    .filter(({ op }) => !(typeof op.description === 'string' && op.description.length >= 40))
    .map(({ key }) => key);
  expect(missing).toEqual([]);
  // No description is left for an operation that no longer exists (it would be read by no one).
  const { describedOperations } = await import('../../api/reference/index');
  const keys = new Set(operations().map((o) => o.key));
  expect(describedOperations().filter((k) => !keys.has(k))).toEqual([]);
});

function validator() {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema({ components: doc.components }, 'doc');
  return (schema: unknown, value: unknown): string[] => {
    // $refs into the document's components resolve against the document.
    const text = JSON.stringify(schema).replace(/"#\/components\//g, '"doc#/components/');
    const validate = ajv.compile(JSON.parse(text) as object);
    return validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
  };
}

test('every operation has a response example, and one of its request body, each valid against its schema', () => {
  const check = validator();
  const problems: string[] = [];
  for (const { key, op } of operations()) {
    const request = op.requestBody?.content?.['application/json'];
    if (request) {
      if (request.example === undefined) problems.push(`${key}: no request example`);
      else for (const e of check(request.schema, request.example)) problems.push(`${key} request: ${e}`);
    }
    const [, success] = Object.entries(op.responses as Record<string, any>).find(([s]) => /^2/.test(s))!;
    const [, media] = Object.entries((success.content ?? {}) as Record<string, any>)[0]!;
    // An operation that never succeeds (payment links are never deleted) has no success to show.
    if (media.schema.not !== undefined) continue;
    if (media.example === undefined) problems.push(`${key}: no response example`);
    else for (const e of check(media.schema, media.example)) problems.push(`${key} response: ${e}`);
  }
  expect(problems).toEqual([]);
});

test('every webhook event type is in the document with an example whose data is valid', async () => {
  const { EVENT_TYPES } = await import('../../domain/event-types');
  expect(Object.keys(doc.webhooks).sort()).toEqual([...EVENT_TYPES].sort());
  const check = validator();
  const problems: string[] = [];
  for (const [type, item] of Object.entries(doc.webhooks as Record<string, any>)) {
    const media = item.post.requestBody.content['application/json'];
    if (media.example === undefined) problems.push(`${type}: no example`);
    else for (const e of check(media.schema, media.example)) problems.push(`${type}: ${e}`);
    if (!(item.post.description?.length > 10)) problems.push(`${type}: no description`);
  }
  expect(problems).toEqual([]);
});

/**
 * Spectral's spectral:oas ruleset as `spectral lint` runs it (its recommended rules), on the live
 * document. The one override is the three paths the spec itself writes with a trailing slash, the
 * same exception redocly.yaml's ignore file makes (decisions 0109, 0255); a pointer's braces are
 * percent-encoded, as Spectral matches them.
 */
const SPECTRAL_OVERRIDES = [
  {
    files: [
      '**#/paths/~1v1~1checkout~1sessions~1',
      '**#/paths/~1v1~1merchant~1theme~1',
      '**#/paths/~1api~1v1~1%7Bplatform%7D~1webhook~1',
    ],
    rules: { 'path-keys-no-trailing-slash': 'off' as const },
  },
];

test("Spectral's spectral:oas ruleset finds nothing in the document (decision 0255)", async () => {
  const { Spectral, Document, Ruleset } = await import('@stoplight/spectral-core');
  const { Json } = await import('@stoplight/spectral-parsers');
  const { oas } = await import('@stoplight/spectral-rulesets');
  const spectral = new Spectral();
  // A ruleset with overrides needs a source to resolve their globs against; it is never read.
  spectral.setRuleset(
    new Ruleset(
      { extends: [[oas, 'recommended']], overrides: SPECTRAL_OVERRIDES },
      { source: '/skil/.spectral.json' },
    ),
  );
  const results = await spectral.run(new Document(JSON.stringify(doc), Json, '/skil/openapi.json'));
  // Every severity counts: error, warning, information and hint alike.
  expect(results.map((r) => `${r.code} at ${r.path.join('/')}: ${r.message}`)).toEqual([]);
  // The override hides the three paths only: a fourth with a trailing slash is found.
  const probe = structuredClone(doc);
  probe.paths['/v1/probe/'] = probe.paths['/v1'];
  delete probe.paths['/v1'];
  const found = await spectral.run(new Document(JSON.stringify(probe), Json, '/skil/openapi.json'));
  expect(found.map((r) => `${r.code} ${r.path.join('/')}`)).toEqual([
    'path-keys-no-trailing-slash paths//v1/probe/',
  ]);
}, 60_000);

test('GET /v1 names the reference, which links the machine-readable document', async () => {
  const v1 = await stack.api(null, '/v1');
  expect(v1.body.documentation).toBe(`${stack.url}/docs`);
  const page = await fetch(`${stack.url}/docs`);
  expect(page.status).toBe(200);
  expect(await page.text()).toContain('href="/v1/openapi.json"');
});

describe('runnable samples', () => {
  const guides = GUIDES.flatMap(({ name, icelandic }) => [
    path.join(GUIDES_DIR, `${name}.md`),
    ...(icelandic ? [path.join(GUIDES_DIR, `${name}.is.md`)] : []),
  ]);

  test('the guides have runnable samples, and each runs against the stack', async () => {
    const m = await stack.merchant('Sýnidæmi ehf.');
    const env = { SKIL_URL: stack.url, SKIL_API_KEY: m.testKey };
    let count = 0;
    for (const file of guides)
      for (const sample of runnableSamples(file)) {
        count++;
        const run = await runSample(sample, env);
        // The sample's place and its output name a failure.
        expect(`${path.basename(file)}:${sample.line} exit ${run.exitCode}\n${run.output}`).toMatch(
          / exit 0\n/,
        );
      }
    expect(count).toBeGreaterThanOrEqual(5);
  }, 120_000);

  test('a deliberately broken sample fails the runner', async () => {
    const m = await stack.merchant();
    const [sample] = runnableSamples(path.join(__dirname, '..', 'fixtures', 'docs', 'broken-sample.md'));
    expect(sample).toBeDefined();
    const run = await runSample(sample!, { SKIL_URL: stack.url, SKIL_API_KEY: m.testKey });
    expect(run.exitCode).not.toBe(0);
    expect(run.output).toContain('404');
  });
});

describe('pages in Chromium', () => {
  function referencePaths(): string[] {
    const tags = new Set(operations().map((o) => o.op.tags[0] as string));
    const slug = (t: string) =>
      t
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '-')
        .replace(/^-|-$/g, '');
    return ['/docs', '/docs/events', ...[...tags].map((t) => `/docs/api/${slug(t)}`)];
  }
  function guidePaths(): string[] {
    return [
      '/docs/guides',
      ...GUIDES.flatMap(({ name, icelandic }) => [
        guideHref(name, 'en'),
        ...(icelandic ? [guideHref(name, 'is')] : []),
      ]),
    ];
  }

  const links = new Set<string>();
  for (const width of [390, 1280])
    describe(`at ${width} px`, () => {
      // One browser context per width, shared by the reference's pages and the guides; each group is
      // a test of its own, with its own time: the tag pages are long, and axe reads every node.
      let t: TestPage;
      beforeAll(async () => {
        t = await openPage(browser, stack.url);
        await t.page.setViewportSize({ width, height: 900 });
      });
      afterAll(async () => {
        await t?.context.close();
      });

      async function problemsOf(paths: string[]): Promise<string[]> {
        const problems: string[] = [];
        const errorsBefore = t.errors.length;
        for (const p of paths) {
          const res = await t.page.goto(`${stack.url}${p}`);
          if (res?.status() !== 200) problems.push(`${p} answered ${res?.status()}`);
          const overflow = await t.page.evaluate(sidewaysOverflow);
          if (overflow) problems.push(`${p}: ${overflow}`);
          const findings = await accessibilityFindings(t.page, { everyImpact: true, bestPractices: true });
          for (const f of findings) problems.push(`${p}: ${f.id} ${f.targets.slice(0, 3).join(' | ')}`);
          const hrefs = await t.page.$$eval('a[href]', (as) => as.map((a) => a.getAttribute('href') ?? ''));
          for (const h of hrefs) if (h.startsWith('/')) links.add(h.split('#')[0] ?? h);
        }
        // Console errors: a Content-Security-Policy violation is one.
        problems.push(...t.errors.slice(errorsBefore).map((e) => `console: ${e}`));
        return problems;
      }

      test('the reference: no axe finding, no sideways overflow, no CSP violation', async () => {
        expect(await problemsOf(referencePaths())).toEqual([]);
        // Over two minutes allowed: the tag pages describe every operation, and axe reads each of
        // their nodes: 31–36 s with the machine to itself, up to four times that beside the suite.
      }, 400_000);

      test('every guide: no axe finding, no sideways overflow, no CSP violation', async () => {
        expect(await problemsOf(guidePaths())).toEqual([]);
        // Over two minutes allowed: every guide page, each read by axe: 10–12 s with the machine to
        // itself, many times that beside the suite on a loaded machine.
      }, 300_000);
    });

  test('every internal link of those pages answers 200', async () => {
    expect(links.size).toBeGreaterThan(20);
    const broken: string[] = [];
    for (const href of links) {
      const res = await fetch(`${stack.url}${href}`);
      if (res.status !== 200) broken.push(`${href} answered ${res.status}`);
    }
    expect(broken).toEqual([]);
  });
});
