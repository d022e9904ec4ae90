import {
  claimBatchWorkflowId,
  lifecycleQuery,
  scheduleId,
  settlementDayWorkflowId,
  settlementRunStatusQuery,
  settlementRunWorkflowId,
  subscriptionWorkflowId,
  testClockBillingRunWorkflowId,
  testClockWorkflowId,
  webhookWorkflowId,
} from '../../workflows/contract';
import { lintInChild } from '../helpers/lint-in-child';

/** The Temporal contract rules' failures (`line:rule`) for each case, with the repository's config. */
function contractRuleFailures(...cases: [code: string, filePath: string][]): string[][] {
  const results = lintInChild(
    cases.map(([code, filePath]) => ({ code, filePath })),
    'temporal-contract/',
  );
  for (const messages of results) expect(messages.filter((m) => m.fatal)).toEqual([]);
  return results.map((messages) => messages.map((m) => `${m.line}:${m.ruleId}`));
}

const FORBIDDEN = `import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { Client } from '@temporalio/client';

export const cancelSignal = defineSignal('cancel');
export const stateQuery = defineQuery<string>('state');
export const tickUpdate = defineUpdate<void, [number]>('tick');
export const runId = (env: string, merchant: string, date: string) => \`settlement/\${env}/\${merchant}/\${date}\`;

export async function startBatch(client: Client, batch: string): Promise<void> {
  await client.workflow.start('claimBatch', {
    workflowId: \`claim-batch/test/\${batch}\`,
    taskQueue: 'skil',
  });
  await client.workflow.getHandle(runId('test', 'acct_1', '2026-11-23')).signal('payoutConfirmed');
}
`;

const FORBIDDEN_FAILURES = [
  '4:temporal-contract/definitions',
  '5:temporal-contract/definitions',
  '6:temporal-contract/definitions',
  '7:temporal-contract/workflow-ids',
  '10:temporal-contract/names',
  '11:temporal-contract/names',
  '11:temporal-contract/workflow-ids',
  '14:temporal-contract/names',
];

const IDS = [
  subscriptionWorkflowId('sub_1'),
  testClockWorkflowId('clock_1'),
  testClockBillingRunWorkflowId('clock_1', 0, 0),
  webhookWorkflowId('nc_1'),
  claimBatchWorkflowId(false, 'b1'),
  settlementRunWorkflowId(true, 'acct_1', '2026-11-23'),
  settlementDayWorkflowId(true, 'q', '2026-11-23'),
  scheduleId.webhookRelay('q'),
  scheduleId.maintenance('q'),
  scheduleId.checkoutExpiry('q'),
  scheduleId.billingRun(true, 'q'),
  scheduleId.claimBatch(true, 'q'),
  scheduleId.settlementDay(true, 'q'),
  scheduleId.claimPaymentsSync('q'),
  scheduleId.bankSync('simulated', 'q'),
];

const QUERIES = `declare const handle: { query(name: string): Promise<unknown> };
declare const pg: { query(sql: string): Promise<unknown> };
export const a = handle.query('${lifecycleQuery.name}');
export const b = handle.query('${settlementRunStatusQuery.name}');
export const c = pg.query('select 1');
`;

test('signals, queries, updates, workflow names and ids are defined only in workflows/contract.ts', () => {
  const [service, workflow, contract, ids, queries] = contractRuleFailures(
    [FORBIDDEN, 'services/some-fixture.ts'],
    // Workflow code is no exception: it imports its definitions from the contract too.
    [FORBIDDEN, 'workflows/some-workflow.ts'],
    [FORBIDDEN, 'workflows/contract.ts'],
    // Every id the contract builds is recognised when written out as text.
    [IDS.map((id, i) => `export const id${i} = '${id}';`).join('\n'), 'engine/some-fixture.ts'],
    // The contract's query names are refused; pg's query() with SQL is left alone.
    [QUERIES, 'db/some-fixture.ts'],
  );
  expect(service).toEqual(FORBIDDEN_FAILURES);
  expect(workflow).toEqual(FORBIDDEN_FAILURES);
  expect(contract).toEqual([]);
  expect(ids).toEqual(IDS.map((_, i) => `${i + 1}:temporal-contract/workflow-ids`));
  expect(queries).toEqual(['3:temporal-contract/names', '4:temporal-contract/names']);
});
