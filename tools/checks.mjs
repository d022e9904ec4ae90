// The static checks of `npm test` — types, lint, format — side by side. Each is one single-threaded
// process (about 45, 105 and 35 CPU-seconds on the 2-core CI machine), so run one after another
// they spent three minutes with a core idle. Each one's output is printed whole when it ends, so
// reports do not interleave; the exit code is non-zero when any failed.
import { spawn } from 'node:child_process';

const CHECKS = [
  ['types', 'tsc', ['--noEmit']],
  ['lint', 'eslint', ['.']],
  ['format', 'prettier', ['--check', '.']],
];

function run([name, bin, args]) {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn('npx', ['--no-install', bin, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c) => (output += c));
    child.stderr.on('data', (c) => (output += c));
    child.on('error', (err) => resolve({ name, ok: false, output: String(err), ms: 0 }));
    child.on('close', (code) => resolve({ name, ok: code === 0, output, ms: Date.now() - started }));
  }).then((result) => {
    const seconds = (result.ms / 1000).toFixed(0);
    process.stdout.write(`${result.ok ? 'ok  ' : 'FAIL'} ${name} (${bin}, ${seconds} s)\n`);
    if (!result.ok || result.output.trim())
      process.stdout.write(result.output.replace(/^/gm, `  ${name} | `) + '\n');
    return result.ok;
  });
}

const results = await Promise.all(CHECKS.map(run));
process.exit(results.every(Boolean) ? 0 : 1);
