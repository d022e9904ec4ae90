import { execFileSync } from 'node:child_process';
import path from 'node:path';

export interface LintCase {
  code: string;
  /** Where the code pretends to live (decides which config blocks apply); need not exist. */
  filePath: string;
}

export interface LintMessage {
  line: number;
  ruleId: string | null;
  message: string;
  fatal: boolean;
}

// ESLint loads eslint.config.mjs with a dynamic import, which Jest's module sandbox refuses, so
// the repository's config runs in a child Node process. That config reads syntax alone (the rules
// that need types run in oxlint, decision 0199), and only the rules whose id starts with
// `rulePrefix` run.
const SCRIPT = `
import { ESLint } from 'eslint';
let input = '';
for await (const chunk of process.stdin) input += chunk;
const { cwd, rulePrefix, cases } = JSON.parse(input);
const eslint = new ESLint({ cwd, ruleFilter: ({ ruleId }) => ruleId.startsWith(rulePrefix) });
const out = [];
for (const c of cases) {
  const [result] = await eslint.lintText(c.code, { filePath: c.filePath });
  out.push(result.messages.map((m) => ({ line: m.line, ruleId: m.ruleId, message: m.message, fatal: !!m.fatal })));
}
process.stdout.write(JSON.stringify(out));
`;

/** Lints each case with the repository's eslint.config.mjs; one message list per case. */
export function lintInChild(cases: LintCase[], rulePrefix: string): LintMessage[][] {
  const cwd = path.resolve(__dirname, '..', '..');
  const stdout = execFileSync(process.execPath, ['--input-type=module', '-e', SCRIPT], {
    cwd,
    input: JSON.stringify({ cwd, rulePrefix, cases }),
    encoding: 'utf8',
    timeout: 60_000,
  });
  return JSON.parse(stdout) as LintMessage[][];
}
