import path from 'node:path';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';

/**
 * The lint rule of "SQL only in db/" (issue 14): knex, pg and SQL text fail outside db/ and pass in
 * it. Type-aware rules are off here: the fixtures exist only as text, so the TypeScript project
 * cannot see them, and the SQL rules need no types.
 */
const eslint = new ESLint({
  cwd: path.resolve(__dirname, '..', '..'),
  overrideConfig: [tseslint.configs.disableTypeChecked],
});

const sqlErrors = async (code: string, filePath: string): Promise<string[]> => {
  const [result] = await eslint.lintText(code, { filePath });
  return result!.messages.filter((m) => m.ruleId?.startsWith('sql/')).map((m) => `${m.line}: ${m.message}`);
};

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

describe('SQL only in db/', () => {
  it.each([
    ['a knex import', knexImport],
    ['a value import of the db knex module', dbModuleValue],
    ['raw SQL', rawSql],
    ['SQL text in a template literal', sqlText],
    ['knex query building', queryBuilder],
  ])('fails on %s outside db/', async (_name, code) => {
    expect(await sqlErrors(code, 'services/fixture.ts')).not.toEqual([]);
    expect(await sqlErrors(code, 'activities/fixture.ts')).not.toEqual([]);
  });

  it.each([
    ['a knex import', knexImport],
    ['a value import of the db knex module', dbModuleValue.replace('../db/knex', './knex')],
    ['raw SQL', rawSql.replace('../db/knex', './knex')],
    ['SQL text in a template literal', sqlText],
    ['knex query building', queryBuilder.replace('../db/knex', './knex')],
  ])('passes %s in db/', async (_name, code) => {
    expect(await sqlErrors(code, 'db/fixture.ts')).toEqual([]);
  });

  it('reports each query of a fixture', async () => {
    expect(await sqlErrors(queryBuilder, 'services/fixture.ts')).toHaveLength(2);
    expect(await sqlErrors(rawSql, 'services/fixture.ts')).toHaveLength(2); // the call and its text
  });

  it('lets a composition root create the knex instance', async () => {
    expect(await sqlErrors(dbModuleValue, 'worker/main.ts')).toEqual([]);
  });

  it('leaves ordinary code, type imports and transactions alone', async () => {
    expect(await sqlErrors(ordinary, 'services/fixture.ts')).toEqual([]);
  });
});
