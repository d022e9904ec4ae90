import { lintInChild } from '../helpers/lint-in-child';

/**
 * The lint rule of "SQL only in db/" (decision 0097): knex, pg and SQL text fail outside db/ and pass in
 * it. ESLint runs in a child process (`new ESLint({ cwd })`, `lintText`): it loads eslint.config.mjs
 * by dynamic import, which jest's module sandbox refuses. The fixtures exist only as text, and the
 * SQL rules, like everything in that config, need no types (decision 0199).
 */
/** The SQL rule's messages (and any parse failure, as `fatal`) for each fixture, linted as if at its path. */
function lint(cases: { code: string; filePath: string }[]): string[][] {
  return lintInChild(cases, 'sql/').map((messages) =>
    messages.map((m) => `${m.ruleId ?? 'fatal'} ${m.line}: ${m.message}`),
  );
}

const knexImport = `import knexFactory from 'knex';
export const k = knexFactory({ client: 'pg' });
`;
const dbModuleValue = `import { createKnex } from '../db/knex';
export const k = createKnex('postgres://localhost/skil');
`;
const rawSql = `import type { Knex } from '../db/knex';
export async function locked(trx: Knex.Transaction, id: string) {
  return trx.raw('select locked_until > now() as locked from users where id = ?', [id]);
}
`;
const sqlText = `export const query = \`update claims set status = 'paid' where id = $1\`;
`;
const queryBuilder = `import type { Knex } from '../db/knex';
export async function find(deps: { knex: Knex }, trx: Knex.Transaction, id: string) {
  await trx('claims').where({ id }).first();
  return deps.knex('claims').where({ id }).first();
}
`;
const ordinary = `import type { Knex } from '../db/knex';
export async function run(deps: { knex: Knex }) {
  const label = 'Update your card details';
  const hint = 'Select a plan';
  return deps.knex.transaction(async () => [label, hint]);
}
`;

const outside: [string, string][] = [
  ['a knex import', knexImport],
  ['a value import of the db knex module', dbModuleValue],
  ['raw SQL', rawSql],
  ['SQL text in a template literal', sqlText],
  ['knex query building', queryBuilder],
];
const inDb = outside.map(([name, code]): [string, string] => [name, code.replace('../db/knex', './knex')]);

describe('SQL only in db/', () => {
  let results: string[][];
  const cases = [
    ...outside.map(([, code]) => ({ code, filePath: 'services/fixture.ts' })),
    ...outside.map(([, code]) => ({ code, filePath: 'activities/fixture.ts' })),
    ...inDb.map(([, code]) => ({ code, filePath: 'db/fixture.ts' })),
    { code: dbModuleValue, filePath: 'worker/main.ts' },
    { code: ordinary, filePath: 'services/fixture.ts' },
  ];
  const resultOf = (code: string, filePath: string) =>
    results[cases.findIndex((c) => c.code === code && c.filePath === filePath)]!;

  beforeAll(() => {
    results = lint(cases);
  }, 120_000);

  it.each(outside)('fails on %s outside db/', (_name, code) => {
    for (const filePath of ['services/fixture.ts', 'activities/fixture.ts']) {
      const messages = resultOf(code, filePath);
      expect(messages).not.toEqual([]);
      expect(messages.every((m) => m.startsWith('sql/'))).toBe(true);
    }
  });

  it.each(inDb)('passes %s in db/', (_name, code) => {
    expect(resultOf(code, 'db/fixture.ts')).toEqual([]);
  });

  it('reports each query of a fixture', () => {
    expect(resultOf(queryBuilder, 'services/fixture.ts')).toHaveLength(2);
    expect(resultOf(rawSql, 'services/fixture.ts')).toHaveLength(2); // the call and its text
  });

  it('lets a composition root create the knex instance', () => {
    expect(resultOf(dbModuleValue, 'worker/main.ts')).toEqual([]);
  });

  it('leaves ordinary code, type imports and transactions alone', () => {
    expect(resultOf(ordinary, 'services/fixture.ts')).toEqual([]);
  });
});
