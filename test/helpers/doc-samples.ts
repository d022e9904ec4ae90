import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { renderMarkdown, type CodeBlock } from '../../web/docs/markdown';

/**
 * The runnable samples of a guide (decision 0253): its fenced code blocks marked `runnable`,
 * extracted by the same Markdown renderer that shows them on /docs/guides, and run with bash
 * against a real stack, with SKIL_URL and SKIL_API_KEY set as the guides tell a reader to set them.
 */
export function runnableSamples(file: string): CodeBlock[] {
  return renderMarkdown(readFileSync(file, 'utf8')).code.filter((c) => c.runnable);
}

export interface SampleRun {
  exitCode: number;
  output: string;
}

export function runSample(
  sample: CodeBlock,
  env: { SKIL_URL: string; SKIL_API_KEY: string },
): Promise<SampleRun> {
  if (sample.lang !== 'sh')
    throw new Error(`No runner for runnable ${sample.lang} samples (line ${sample.line})`);
  return new Promise((resolve) => {
    execFile(
      'bash',
      ['--noprofile', '--norc', '-euo', 'pipefail', '-c', sample.code],
      { env: { PATH: process.env.PATH ?? '', ...env }, timeout: 60_000 },
      (err, stdout, stderr) =>
        resolve({
          exitCode: err ? (typeof err.code === 'number' ? err.code : 1) : 0,
          output: `${stdout}${stderr}`,
        }),
    );
  });
}
