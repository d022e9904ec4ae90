import { lintInChild } from '../helpers/lint-in-child';

interface LintCase {
  file: string;
  code: string;
}

// The layout table is a lint rule: the project's own ESLint configuration runs on code placed
// (virtually) in one room that imports another, and the rule must fail exactly where the table
// forbids the import.
const use = (code: string) => `${code}\nexport const y = x;\n`;

const forbidden: [LintCase, string][] = [
  [
    { file: 'web/lint-fixture.ts', code: use("import { listQuery as x } from '../api/list';") },
    'web/ may not import api/',
  ],
  [
    { file: 'services/claims/lint-fixture.ts', code: use("import { x } from '../../api/route';") },
    'services/ may not import api/',
  ],
  [
    { file: 'domain/lint-fixture.ts', code: use("import { x } from '../db/knex';") },
    'domain/ may not import db/',
  ],
  [
    { file: 'db/lint-fixture.ts', code: use("import { x } from '../services/lookup';") },
    'db/ may not import services/',
  ],
  [
    { file: 'engine/lint-fixture.ts', code: use("import { x } from '../workflows/subscription';") },
    'engine/ may not import workflows/',
  ],
  [
    { file: 'simulators/lint-fixture.ts', code: use("import { x } from '../web/html';") },
    'simulators/ may not import web/',
  ],
  [
    { file: 'adapters/lint-fixture.ts', code: use("import { x } from '../simulators/acquirer';") },
    'may not import simulators/',
  ],
  [
    { file: 'activities/lint-fixture.ts', code: use("import { x } from '../db/knex';") },
    'activities/ may not import db/',
  ],
  [
    { file: 'activities/lint-fixture.ts', code: use("import type { x } from '../db/subscriptions';") },
    'activities/ may not import db/',
  ],
  [
    { file: 'workflows/lint-fixture.ts', code: use("import { x } from '../activities/billing';") },
    'by type only',
  ],
];

const allowed: LintCase[] = [
  { file: 'web/lint-fixture.ts', code: use("import { x } from '../services/lookup';") },
  { file: 'services/claims/lint-fixture.ts', code: use("import { x } from '../../db/knex';") },
  { file: 'activities/lint-fixture.ts', code: use("import { x } from '../services/lookup';") },
  { file: 'test/lint-fixture.ts', code: use("import { x } from '../api/route';") },
  {
    file: 'workflows/lint-fixture.ts',
    code: "import type { X } from '../activities/billing';\nexport type Y = X;\n",
  },
];

describe('layout lint rule', () => {
  let results: string[][];
  beforeAll(() => {
    const cases = [...forbidden.map(([c]) => c), ...allowed].map((c) => ({ code: c.code, filePath: c.file }));
    const messages = lintInChild(cases, 'skil/');
    results = messages.map((ms) => ms.filter((m) => m.ruleId === 'skil/layout').map((m) => m.message));
  }, 60_000);

  it.each(forbidden.map(([c, message], i) => [c.file, c.code.split('\n')[0], message, i] as const))(
    'fails %s: %s',
    (_file, _code, message, i) => {
      expect(results[i]).toEqual([expect.stringContaining(message)]);
    },
  );

  it.each(allowed.map((c, i) => [c.file, c.code.split('\n')[0], forbidden.length + i] as const))(
    'lets %s import what its row allows: %s',
    (_file, _code, i) => {
      expect(results[i]).toEqual([]);
    },
  );
});
