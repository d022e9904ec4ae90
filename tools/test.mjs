// `npm test`: the static checks (types, lint, format: tools/checks.mjs) at the lowest CPU priority
// beside jest, so they take the CPU jest's files leave idle while waiting on timers, Temporal and
// child processes instead of minutes of their own. Files with a time bound of their own (a year of
// renewals for 1,000 subscriptions in under 60 s, 27 s alone) run first, alone: beside the other
// files on two cores the same advance took over 60 s. Then the rest, with jest's workers.
// Arguments, when given, go to one plain jest run. The checks' report follows jest's output.
import { spawn } from 'node:child_process';

const TIME_BOUND = ['test/integration/subscriptions.test.ts'];

function run(command, args, stdio) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio });
    let output = '';
    child.stdout?.on('data', (c) => (output += c));
    child.stderr?.on('data', (c) => (output += c));
    child.on('error', (err) => resolve({ code: 1, output: String(err) }));
    child.on('close', (code) => resolve({ code: code ?? 1, output }));
  });
}

const jest = (args) => run('npx', ['--no-install', 'jest', ...args], 'inherit');

async function suite() {
  const args = process.argv.slice(2);
  if (args.length > 0) return (await jest(args)).code;
  const alone = await jest(['--maxWorkers=1', ...TIME_BOUND]);
  const rest = await jest(TIME_BOUND.flatMap((file) => ['--testPathIgnorePatterns', `${file}$`]));
  return alone.code || rest.code;
}

const [checks, code] = await Promise.all([
  run('nice', ['-n', '19', process.execPath, 'tools/checks.mjs'], ['ignore', 'pipe', 'pipe']),
  suite(),
]);
process.stdout.write(`\nStatic checks (npm run checks):\n${checks.output}`);
process.exit(checks.code === 0 && code === 0 ? 0 : 1);
