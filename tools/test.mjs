// `npm test`: the static checks (types, lint, format: tools/checks.mjs) and jest at the same time.
// Jest's workers spend part of their time waiting on timers, Temporal and child processes, which
// left about a quarter of the two cores idle; the checks, at the lowest CPU priority, take that
// idle time instead of three minutes of their own before jest starts. Jest's output streams as
// usual; the checks' report is printed when both are done. Arguments go to jest.
import { spawn } from 'node:child_process';

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

const [checks, jest] = await Promise.all([
  run('nice', ['-n', '19', process.execPath, 'tools/checks.mjs'], ['ignore', 'pipe', 'pipe']),
  run('npx', ['--no-install', 'jest', ...process.argv.slice(2)], 'inherit'),
]);
process.stdout.write(`\nStatic checks (npm run checks):\n${checks.output}`);
process.exit(checks.code === 0 && jest.code === 0 ? 0 : 1);
