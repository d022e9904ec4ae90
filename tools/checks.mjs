// The static checks of `npm test` — types, lint, format — side by side (decision 0199). On the 2-core
// CI machine they run at the lowest priority beside jest (tools/test.mjs), so what they cost is CPU:
// alone they take about 12 (tsgo), 15–18 (oxlint with type information), 20–27 (ESLint on syntax
// alone) and 30 (prettier) CPU-seconds, where tsc and type-aware ESLint took 40–50 and 90–100.
// Each one's output is printed whole when it ends, so reports do not interleave; the exit code is
// non-zero when any failed.
//
//   node tools/checks.mjs                     every check on the repository
//   node tools/checks.mjs --only NAME,…       some of them: types (npm run typecheck); oxlint,
//                                             eslint,format (npm run lint)
//   node tools/checks.mjs --cwd DIR           on another tree with configs of its own (the fixture of
//                                             test/unit/static-checks-fixture.test.ts)
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * The checks, by name: the binary (from this repository's node_modules/.bin), its arguments and any
 * environment of its own. Every rule and where it runs: decision 0199.
 */
export const CHECKS = [
  // The native TypeScript compiler (TypeScript 7) with tsconfig.json. One checker thread: its
  // parallel checkers cost twice the CPU-seconds and were no faster on two busy cores.
  { name: 'types', bin: 'tsgo', args: ['--noEmit', '--singleThreaded'] },
  // The recommended and type-aware rules (.oxlintrc.json); the types come from oxlint-tsgolint, a
  // Go process, which costs a fifth less CPU held to one thread. Nested configs (the fixture's) are
  // not merged in: each tree is checked with its own root config.
  {
    name: 'oxlint',
    bin: 'oxlint',
    args: ['--disable-nested-config'],
    env: { GOMAXPROCS: '1' },
  },
  // The project's own rules (layout, SQL in db/, Temporal contract, workflow imports) and the few
  // recommended ones oxlint lacks: syntax only, no type information (eslint.config.mjs).
  { name: 'eslint', bin: 'eslint', args: ['.'] },
  { name: 'format', bin: 'prettier', args: ['--check', '.'] },
];

/** Runs one check in `cwd`; resolves with its name, whether it passed, its output and its time. */
export function runCheck(check, cwd = ROOT) {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(path.join(ROOT, 'node_modules', '.bin', check.bin), check.args, {
      cwd,
      env: { ...process.env, ...check.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (c) => (output += c));
    child.stderr.on('data', (c) => (output += c));
    child.on('error', (err) => resolve({ name: check.name, ok: false, output: String(err), ms: 0 }));
    child.on('close', (code) =>
      resolve({ name: check.name, ok: code === 0, output, ms: Date.now() - started }),
    );
  });
}

function report(check, result) {
  const seconds = (result.ms / 1000).toFixed(0);
  process.stdout.write(`${result.ok ? 'ok  ' : 'FAIL'} ${check.name} (${check.bin}, ${seconds} s)\n`);
  if (!result.ok || result.output.trim())
    process.stdout.write(result.output.replace(/^/gm, `  ${check.name} | `) + '\n');
}

async function main(argv) {
  const option = (flag) => {
    const i = argv.indexOf(flag);
    return i === -1 ? undefined : argv[i + 1];
  };
  const only = option('--only')?.split(',');
  const cwd = path.resolve(option('--cwd') ?? ROOT);
  const unknown = only?.filter((name) => !CHECKS.some((c) => c.name === name)) ?? [];
  if (unknown.length > 0) {
    process.stderr.write(`unknown check ${unknown.join(', ')}: ${CHECKS.map((c) => c.name).join(', ')}\n`);
    return 2;
  }
  const chosen = CHECKS.filter((c) => !only || only.includes(c.name));
  const results = await Promise.all(
    chosen.map((check) =>
      runCheck(check, cwd).then((result) => {
        report(check, result);
        return result.ok;
      }),
    ),
  );
  return results.every(Boolean) ? 0 : 1;
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href)
  process.exit(await main(process.argv.slice(2)));
