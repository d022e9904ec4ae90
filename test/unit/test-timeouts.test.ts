import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/*
 * A test that needs more than two minutes says why in a comment (decision 0200). Every timeout given to
 * a test, a hook or a file (`}, 150_000);`, `jest.setTimeout(…)`) over 120 s needs a comment on
 * one of the four lines before it.
 */
const LIMIT_MS = 120_000;
const ROOT = path.resolve(__dirname, '..');

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'fixtures' ? [] : testFiles(full);
    return e.name.endsWith('.ts') ? [full] : [];
  });
}

/** Timeouts over the limit with no comment just before them, as `file:line ms`. */
export function unexplainedTimeouts(file: string, text: string): string[] {
  const lines = text.split('\n');
  const found: string[] = [];
  lines.forEach((line, i) => {
    const m = /^\s*\}, ([\d_]+)\);\s*$/.exec(line) ?? /^\s*jest\.setTimeout\(([\d_]+)\)/.exec(line);
    if (!m) return;
    const ms = Number(m[1]!.replace(/_/g, ''));
    if (ms <= LIMIT_MS) return;
    const before = lines.slice(Math.max(0, i - 4), i);
    if (!before.some((l) => /^\s*\/\//.test(l))) found.push(`${file}:${i + 1} ${ms}`);
  });
  return found;
}

test('every timeout over two minutes has a comment saying why', () => {
  const found = testFiles(ROOT).flatMap((f) =>
    unexplainedTimeouts(path.relative(ROOT, f), readFileSync(f, 'utf8')),
  );
  expect(found).toEqual([]);
});

test('the check finds an unexplained long timeout, and accepts it with a reason', () => {
  const long = ["test('slow', async () => {", '  await work();', '}, 180_000);'].join('\n');
  expect(unexplainedTimeouts('a.test.ts', long)).toEqual(['a.test.ts:3 180000']);
  expect(unexplainedTimeouts('a.test.ts', 'jest.setTimeout(300_000);')).toEqual(['a.test.ts:1 300000']);
  const explained = long.replace(
    '}, 180_000);',
    '  // Five worker kills, each waiting out a heartbeat.\n}, 180_000);',
  );
  expect(unexplainedTimeouts('a.test.ts', explained)).toEqual([]);
  expect(unexplainedTimeouts('a.test.ts', long.replace('180_000', '120_000'))).toEqual([]);
});
