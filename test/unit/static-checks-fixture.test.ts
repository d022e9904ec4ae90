import { spawnSync } from 'node:child_process';
import path from 'node:path';

/**
 * The static checks still enforce every rule family after the move to tsgo and oxlint (decision
 * 0199). `tools/checks.mjs --cwd` runs its own command list, unchanged, on test/fixtures/static-checks,
 * a tree with its own configs (each extends the repository's) and exactly one violation per family:
 * each must be reported, by the check that owns it, at its file, and nothing else may be. That the
 * repository itself passes is `npm run checks`.
 */
const root = path.resolve(__dirname, '..', '..');
const fixture = path.join(root, 'test', 'fixtures', 'static-checks');

/** `check file rule`, one per violation the fixture holds. */
const EXPECTED = [
  'types services/type-error.ts TS2322',
  'oxlint services/floating.ts typescript(no-floating-promises)',
  'oxlint services/misused.ts typescript(no-misused-promises)',
  'oxlint services/type-import.ts typescript(consistent-type-imports)',
  'oxlint services/unused.ts eslint(no-unused-vars)',
  'oxlint services/unsafe.ts typescript(no-unsafe-assignment)',
  'eslint workflows/builtin.ts no-restricted-imports',
  'eslint web/layout.ts skil/layout',
  'eslint services/sql.ts sql/no-restricted-syntax',
  'eslint services/contract.ts temporal-contract/definitions',
  'format services/unformatted.ts prettier',
].sort();

/**
 * Each check's own output, from the `name | line` lines tools/checks.mjs prints for it. Colour codes
 * are dropped: where `CI` is set, prettier and oxlint colour their reports even into a pipe.
 */
function outputs(stdout: string): Map<string, string> {
  const byCheck = new Map<string, string[]>();
  // eslint-disable-next-line no-control-regex -- the escape character is what is being removed
  for (const line of stdout.replace(/\u001b\[[0-9;]*m/g, '').split('\n')) {
    const match = /^ {2}([\w-]+) \| ?(.*)$/.exec(line);
    if (match) byCheck.set(match[1]!, [...(byCheck.get(match[1]!) ?? []), match[2]!]);
  }
  return new Map([...byCheck].map(([name, lines]) => [name, lines.join('\n')]));
}

/** The violations a check reported, as `check file rule`, read from the tool's own report format. */
function findings(check: string, text: string): string[] {
  const found: string[] = [];
  const add = (file: string, rule: string) => found.push(`${check} ${file} ${rule}`);
  if (check === 'types') {
    // tsgo: `services/type-error.ts(2,14): error TS2322: ...`
    for (const m of text.matchAll(/^(\S+)\(\d+,\d+\): error (TS\d+):/gm)) add(m[1]!, m[2]!);
  } else if (check === 'oxlint') {
    // `  x typescript(no-floating-promises): ...` and, on the next line, `   ,-[services/floating.ts:5:3]`;
    // where `CI` is set, oxlint draws the same report with `×` and `╭─[`.
    const report = /^ {2}[x!×⚠] ([\w-]+\([\w/-]+\)):.*\n\s*(?:,-|╭─)\[([^:\]]+):/gm;
    for (const m of text.matchAll(report)) add(m[2]!, m[1]!);
  } else if (check === 'eslint') {
    // stylish: the file's absolute path, then `  2:1  error  message  rule-id` per problem.
    let file = '';
    for (const line of text.split('\n')) {
      if (line.startsWith('/')) file = path.relative(fixture, line.trim());
      const m = /^\s+\d+:\d+\s+(?:error|warning)\s+.*\s(\S+)$/.exec(line);
      if (m) add(file, m[1]!);
    }
  } else if (check === 'format') {
    for (const m of text.matchAll(/^\[warn\] (\S+\.\w+)$/gm)) add(m[1]!, 'prettier');
  }
  return found;
}

test('each rule family reports its one violation in the fixture, through the checks npm test runs', () => {
  // No FORCE_COLOR: tsgo would print its pretty report, not the one read here.
  const { FORCE_COLOR: _forced, ...env } = process.env;
  const run = spawnSync(process.execPath, ['tools/checks.mjs', '--cwd', fixture], {
    cwd: root,
    env: { ...env, NO_COLOR: '1' },
    encoding: 'utf8',
    timeout: 110_000,
  });
  expect(run.error).toBeUndefined();
  const byCheck = outputs(run.stdout);
  for (const name of ['types', 'oxlint', 'eslint', 'format']) expect(run.stdout).toContain(`FAIL ${name} (`);
  const reported = [...byCheck].flatMap(([name, text]) => findings(name, text)).sort();
  expect(reported).toEqual(EXPECTED);
  expect(run.status).toBe(1);
}, 120_000);
