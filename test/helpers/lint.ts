import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

const root = path.resolve(__dirname, '..', '..');

export interface LintCase {
  /** Where the code is taken to live, relative to the repository root (it is not written there). */
  file: string;
  code: string;
}

export interface LintMessage {
  ruleId: string | null;
  message: string;
}

// ESLint's flat config is an ES module, which Jest's module system cannot load; so the project's
// own configuration runs in a plain Node process, all cases in one (the config is read once).
const script = `
import { ESLint } from 'eslint';
import path from 'node:path';
const cases = JSON.parse(process.argv[1]);
// Only the rules under test, without type information: the layout and contract rules read import
// paths and syntax, and a type-aware run would build a TypeScript program per virtual file.
const only = JSON.parse(process.argv[2]);
const eslint = new ESLint({
  cwd: process.cwd(),
  ruleFilter: ({ ruleId }) => only.includes(ruleId),
  overrideConfig: { languageOptions: { parserOptions: { projectService: false, project: null } } },
});
const out = [];
for (const c of cases) {
  const [r] = await eslint.lintText(c.code, { filePath: path.join(process.cwd(), c.file) });
  out.push(r.messages.map((m) => ({ ruleId: m.ruleId, message: m.message })));
}
process.stdout.write(JSON.stringify(out));
`;

/** Lints each case with the repository's ESLint configuration, `rules` only; the messages per case. */
export async function lintCases(cases: LintCase[], rules: string[]): Promise<LintMessage[][]> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--input-type=module', '-e', script, JSON.stringify(cases), JSON.stringify(rules)],
    { cwd: root, maxBuffer: 16 * 1024 * 1024 },
  );
  return JSON.parse(stdout) as LintMessage[][];
}
