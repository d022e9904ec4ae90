// Lint rules follow temporalio/sdk-typescript: promises are awaited or voided on purpose, type-only
// imports are marked, and workflow code cannot reach Node or activity implementations (it runs in
// Temporal's deterministic sandbox, and activities must be called through proxies).
// Two linters share the rules (decision 0199): oxlint (.oxlintrc.json) runs the recommended and
// type-aware ones; this file the project's own (layout, SQL in db/, Temporal contract, workflow
// imports) and the recommended ones oxlint lacks, on syntax alone.
import tseslint from 'typescript-eslint';
import { builtinModules } from 'node:module';
import { builtinRules } from 'eslint/use-at-your-own-risk';
import { COMPOSITION_ROOTS, layoutPlugin } from './tools/eslint-layout.mjs';

const nodeBuiltins = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)];

// --- SQL only in db/ (decision 0097) -------------------------------------------------------------
// knex, pg and SQL live in db/ (repositories), migrations/, the embedded-PostgreSQL launcher,
// test/ and bench/. Elsewhere code holds a knex instance or a transaction only to hand it to a
// repository (`Knex` types and `.transaction(...)` are fine) and never builds a query itself.
// The core rules are registered again under the `sql/` prefix so that other blocks' own
// no-restricted-imports / no-restricted-syntax (layout, workflow contract) do not replace these
// options for the same files: in flat config the last block to set a rule wins.
const sqlPlugin = {
  rules: {
    'no-restricted-imports': builtinRules.get('no-restricted-imports'),
    'no-restricted-syntax': builtinRules.get('no-restricted-syntax'),
  },
};
const sqlOutsideDb = 'SQL lives in db/: add a repository method there and call it.';
const knexImports = (importNames) => [
  'error',
  {
    paths: ['knex', 'pg'].map((name) => ({ name, allowTypeImports: true, message: sqlOutsideDb })),
    patterns: [
      { group: ['knex/*', 'pg/*', 'pg-*'], allowTypeImports: true, message: sqlOutsideDb },
      { group: ['**/db/knex'], importNames, message: sqlOutsideDb },
    ],
  },
];
// Statements as they begin in SQL text, strict enough that prose ("Update your card") passes.
const SQL_TEXT =
  '/^\\s*(select\\s+(\\S[\\s\\S]*\\s(from|as)\\s|[\\w.*]+\\s*(\\(|::|$)|\\d|\\?)|insert\\s+into\\s|update\\s+\\w+(\\s+\\w+)?\\s+set\\s|delete\\s+from\\s|with\\s+(recursive\\s+)?\\w+\\s+as\\s*\\(|(create|alter|drop)\\s+(temp\\s+|temporary\\s+|unique\\s+)?(table|index|view|schema)\\s|truncate\\s|set\\s+(local\\s+)?\\w+\\s*(=|to\\s))/i';
const KNEX_NAMES = '/^(knex|trx|db|tx)$/';
const sqlFiles = ['**/*.ts', '**/*.mts', '**/*.cts', '**/*.js', '**/*.mjs', '**/*.cjs'];
const sqlAllowed = ['db/**', 'migrations/**', 'stack/embedded-postgres.ts', 'test/**', 'bench/**'];
// Composition roots create the knex instance (createKnex); nothing else does.
const compositionRoots = [
  'api/main.ts',
  'worker/main.ts',
  'stack/start.ts',
  'stack/cluster.ts',
  'stack/operator-create.ts',
];
const sqlBlocks = [
  {
    files: sqlFiles,
    ignores: sqlAllowed,
    plugins: { sql: sqlPlugin },
    rules: {
      'sql/no-restricted-imports': knexImports(['createKnex', 'withoutJit']),
      'sql/no-restricted-syntax': [
        'error',
        {
          selector: 'CallExpression[callee.property.name=/^(raw|[a-z]+Raw)$/]',
          message: `Raw SQL outside db/. ${sqlOutsideDb}`,
        },
        {
          selector: `CallExpression[callee.type='Identifier'][callee.name=${KNEX_NAMES}]`,
          message: `A knex query outside db/. ${sqlOutsideDb}`,
        },
        {
          selector: `CallExpression[callee.type='MemberExpression'][callee.property.name=${KNEX_NAMES}]`,
          message: `A knex query outside db/. ${sqlOutsideDb}`,
        },
        {
          selector: `MemberExpression[property.name=/^(schema|fn|migrate|seed|ref)$/][object.name=${KNEX_NAMES}]`,
          message: `knex outside db/. ${sqlOutsideDb}`,
        },
        {
          selector: `MemberExpression[property.name=/^(schema|fn|migrate|seed|ref)$/][object.property.name=${KNEX_NAMES}]`,
          message: `knex outside db/. ${sqlOutsideDb}`,
        },
        { selector: `Literal[value=${SQL_TEXT}]`, message: `SQL text outside db/. ${sqlOutsideDb}` },
        {
          selector: `TemplateElement[value.raw=${SQL_TEXT}]`,
          message: `SQL text outside db/. ${sqlOutsideDb}`,
        },
      ],
    },
  },
  {
    files: compositionRoots,
    plugins: { sql: sqlPlugin },
    rules: { 'sql/no-restricted-imports': knexImports(['withoutJit']) },
  },
];
// --- end of SQL only in db/ ----------------------------------------------------------------------
// ── Temporal contract (decision 0095) ────────────────────────────────────────────────────────────
// Signals, queries and updates are defined, workflow type names spelled and workflow ids built only
// in workflows/contract.ts; everything else imports them from there, so a renamed workflow or id
// cannot drift between the code that starts a workflow and the code that runs it. A local plugin,
// not no-restricted-syntax, so these rules never replace another block's restrictions.
const TEMPORAL_CONTRACT_FILE = 'workflows/contract.ts';
// Workflow and schedule id prefixes (architecture, "Workflows").
const WORKFLOW_ID_PREFIX =
  /^(subscription|billing-run|claim-batch|settlement|settlement-day|webhooks|webhooks-relay|clock|bank-sync|checkout-expiry|maintenance|claim-payments-sync)\//;
// Client and workflow calls whose first argument names a workflow, signal or update (or an id).
const TEMPORAL_NAMED_CALLS = new Set([
  'start',
  'execute',
  'signalWithStart',
  'startChild',
  'executeChild',
  'signal',
  'executeUpdate',
  'startUpdate',
  'getHandle',
]);
// `query` is also pg's: only the contract's query names are refused there.
const TEMPORAL_QUERY_NAMES = new Set(['lifecycle', 'settlementRunStatus']);
// Option properties that name a workflow or a signal, or carry a workflow id.
const TEMPORAL_NAMED_PROPERTIES = new Set(['workflowType', 'signal', 'workflowId']);

const isText = (node) =>
  (node?.type === 'Literal' && typeof node.value === 'string') || node?.type === 'TemplateLiteral';
const textStart = (node) =>
  node.type === 'Literal' ? node.value : (node.quasis[0]?.value.cooked ?? node.quasis[0]?.value.raw ?? '');
const calleeName = (callee) =>
  callee.type === 'Identifier'
    ? callee.name
    : callee.type === 'MemberExpression' && !callee.computed && callee.property.type === 'Identifier'
      ? callee.property.name
      : null;

const temporalContract = {
  rules: {
    definitions: {
      meta: {
        type: 'problem',
        schema: [],
        messages: { define: '{{name}} belongs in workflows/contract.ts; import the definition from there.' },
      },
      create: (context) => ({
        CallExpression(node) {
          const name = calleeName(node.callee);
          if (name === 'defineSignal' || name === 'defineQuery' || name === 'defineUpdate')
            context.report({ node, messageId: 'define', data: { name } });
        },
      }),
    },
    'workflow-ids': {
      meta: {
        type: 'problem',
        schema: [],
        messages: { id: 'Workflow and schedule ids are built by the id builders of workflows/contract.ts.' },
      },
      create: (context) => {
        const check = (node) => {
          if (WORKFLOW_ID_PREFIX.test(textStart(node))) context.report({ node, messageId: 'id' });
        };
        return {
          Literal(node) {
            if (typeof node.value === 'string' && node.parent?.type !== 'ImportDeclaration') check(node);
          },
          TemplateLiteral: check,
        };
      },
    },
    names: {
      meta: {
        type: 'problem',
        schema: [],
        messages: {
          name: 'Name workflows, signals, queries, updates and ids through workflows/contract.ts, not as text.',
        },
      },
      create: (context) => ({
        CallExpression(node) {
          const name = calleeName(node.callee);
          const first = node.arguments[0];
          if (!isText(first)) return;
          if (
            TEMPORAL_NAMED_CALLS.has(name) ||
            (name === 'query' && first.type === 'Literal' && TEMPORAL_QUERY_NAMES.has(first.value))
          )
            context.report({ node: first, messageId: 'name' });
        },
        Property(node) {
          if (
            node.computed ||
            node.key.type !== 'Identifier' ||
            !TEMPORAL_NAMED_PROPERTIES.has(node.key.name)
          )
            return;
          if (isText(node.value)) context.report({ node: node.value, messageId: 'name' });
        },
      }),
    },
  },
};

export default tseslint.config(
  {
    ignores: [
      'node_modules/**',
      '.data/**',
      'coverage/**',
      'tools/**',
      'sdk/api-types.ts',
      'cli/bin/**',
      'test/fixtures/static-checks/**',
    ],
  },
  // Syntax only: no type information (no projectService), so ESLint parses each file and builds no
  // program.
  {
    files: ['**/*.ts'],
    languageOptions: { parser: tseslint.parser, sourceType: 'module' },
    // Registered, none enabled: the code's `eslint-disable` comments name typescript-eslint rules
    // that oxlint runs, and ESLint refuses a comment naming a rule it does not know.
    plugins: { '@typescript-eslint': tseslint.plugin },
  },
  // The directives name oxlint's rules too; oxlint reports its own unused ones.
  { linterOptions: { reportUnusedDisableDirectives: 'off' } },
  {
    rules: {
      // From js.configs.recommended; oxlint has no-octal not at all and no-useless-assignment only
      // in its nursery.
      'no-octal': 'error',
      'no-useless-assignment': 'error',
    },
  },
  // The layout table (ARCHITECTURE.md, "Layout"): who may import whom. Composition roots assemble a
  // process and may import any room.
  {
    files: ['**/*.ts'],
    ignores: COMPOSITION_ROOTS,
    plugins: { skil: layoutPlugin },
    rules: { 'skil/layout': 'error' },
  },
  // Workflow code runs in Temporal's deterministic sandbox and calls activities through proxies.
  {
    files: ['workflows/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: nodeBuiltins.map((name) => ({
            name,
            message: 'Workflow code is deterministic: no Node built-ins.',
          })),
          patterns: [
            {
              group: ['**/activities', '**/activities/**'],
              allowTypeImports: true,
              message: 'Import activities by type only and call them through proxyActivities.',
            },
          ],
        },
      ],
    },
  },
  ...sqlBlocks,
  // ── Temporal contract (see temporalContract above): everywhere but the contract and tests.
  {
    files: ['**/*.ts'],
    ignores: [TEMPORAL_CONTRACT_FILE, 'test/**', 'bench/**'],
    plugins: { 'temporal-contract': temporalContract },
    rules: {
      'temporal-contract/definitions': 'error',
      'temporal-contract/workflow-ids': 'error',
      'temporal-contract/names': 'error',
    },
  },
  // The root's JavaScript files (jest's and ESLint's configs): the recommended rules that oxlint has
  // no rule for or only in its nursery; the rest of the recommended set runs in oxlint.
  {
    files: ['*.mjs', '*.js'],
    rules: { 'no-dupe-args': 'error', 'no-undef': 'error' },
  },
  {
    files: ['*.js'],
    languageOptions: { sourceType: 'commonjs', globals: { module: 'writable', require: 'readonly' } },
  },
);
