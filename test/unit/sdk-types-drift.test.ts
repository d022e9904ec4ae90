import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

/**
 * The SDK's types are generated from /v1/openapi.json (decision 0099). When the API's schemas change
 * and `npm run sdk:generate` was not run, the committed types no longer match: this fails and says so.
 */
test('sdk/api-types.ts matches the OpenAPI document the API serves', async () => {
  const root = path.resolve(__dirname, '..', '..');
  const tsx = path.join(root, 'node_modules', '.bin', 'tsx');
  const run = await promisify(execFile)(tsx, ['tools/generate-sdk-types.ts', '--check'], { cwd: root }).then(
    (r) => ({ code: 0, out: r.stdout + r.stderr }),
    (err: { code?: number; stdout?: string; stderr?: string }) => ({
      code: err.code ?? 1,
      out: `${err.stdout ?? ''}${err.stderr ?? ''}`,
    }),
  );
  expect(run).toEqual({ code: 0, out: expect.stringContaining('sdk/api-types.ts matches /v1/openapi.json') });
}, 60_000);
