// Lint rules follow temporalio/sdk-typescript: promises are awaited or voided on purpose, type-only
// imports are marked, and workflow code cannot reach Node or activity implementations (it runs in
// Temporal's deterministic sandbox, and activities must be called through proxies).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { builtinModules } from 'node:module';
import { COMPOSITION_ROOTS, layoutPlugin } from './tools/eslint-layout.mjs';

// Files still crossing the layout while their logic moves into services/; the list only shrinks.
const LAYOUT_PENDING = [
  'activities/claims.ts',
  'api/channel-url.ts',
  'api/fields.ts',
  'api/metrics.ts',
  'api/middleware/auth.ts',
  'api/middleware/idempotency.ts',
  'api/middleware/operator-auth.ts',
  'api/routes/billing-portal.ts',
  'api/routes/claims.ts',
  'api/routes/coupons.ts',
  'api/routes/customers.ts',
  'api/routes/device.ts',
  'api/routes/events.ts',
  'api/routes/merchant.ts',
  'api/routes/notification-channel-objects.ts',
  'api/routes/notification-channels.ts',
  'api/routes/operator.ts',
  'api/routes/payment-intents.ts',
  'api/routes/payment-links.ts',
  'api/routes/payment-methods.ts',
  'api/routes/prices.ts',
  'api/routes/product-variants.ts',
  'api/routes/products.ts',
  'api/routes/promotion-codes.ts',
  'api/routes/settlement-runs.ts',
  'api/routes/subscriptions.ts',
  'api/routes/system.ts',
  'api/routes/test-clocks.ts',
  'api/routes/webhook-deliveries.ts',
  'db/claims.ts',
  'db/payment-methods.ts',
  'services/settlement.ts',
  'simulators/bank/payer-page.ts',
  'web/checkout-pages.ts',
  'web/context.ts',
  'web/device-page.ts',
  'web/finance-frame.ts',
  'web/finance-merchant-filter.ts',
  'web/finance-pages.ts',
  'web/finance-queries.ts',
  'web/index.ts',
  'web/operator-pages.ts',
  'web/portal-pages.ts',
  'web/profile-pages.ts',
  'web/session.ts',
  'web/sign-in.ts',
  'web/theme-pages.ts',
];

const nodeBuiltins = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)];

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
  // The layout table (ARCHITECTURE.md, "Layout"): who may import whom. Composition roots assemble a
  // process and may import any room.
  {
    files: ['**/*.ts'],
    ignores: [...COMPOSITION_ROOTS, ...LAYOUT_PENDING],
    plugins: { skil: layoutPlugin },
    rules: { 'skil/layout': 'error' },
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
  { files: ['*.mjs', '*.js'], ...tseslint.configs.disableTypeChecked },
  {
    files: ['*.js'],
    languageOptions: { sourceType: 'commonjs', globals: { module: 'writable', require: 'readonly' } },
  },
);
