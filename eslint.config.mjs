// Lint rules follow temporalio/sdk-typescript: promises are awaited or voided on purpose, type-only
// imports are marked, and workflow code cannot reach Node or activity implementations (it runs in
// Temporal's deterministic sandbox, and activities must be called through proxies).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { builtinModules } from 'node:module';

const nodeBuiltins = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)];

// ── Temporal contract (issue 14, done-means 5) ───────────────────────────────────────────────────
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
  { ignores: ['node_modules/**', '.data/**', 'coverage/**', 'tools/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: { allowDefaultProject: ['*.mjs', '*.js'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/consistent-type-imports': [
        'error',
        { prefer: 'type-imports', fixStyle: 'inline-type-imports' },
      ],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
    },
  },
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
  {
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
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
  { files: ['*.mjs', '*.js'], ...tseslint.configs.disableTypeChecked },
  {
    files: ['*.js'],
    languageOptions: { sourceType: 'commonjs', globals: { module: 'writable', require: 'readonly' } },
  },
);
