import {
  DEFAULT_TASK_QUEUE,
  WorkflowType,
  approveSignal,
  claimBatchWorkflowId,
  clockTickUpdate,
  deliveriesDueSignal,
  lifecycleQuery,
  payoutConfirmedSignal,
  settlementDayWorkflowId,
  settlementRunStatusQuery,
  settlementRunWorkflowId,
  subscriptionChangedSignal,
  subscriptionWorkflowId,
  testClockBillingRunWorkflowId,
  testClockWorkflowId,
  webhookWorkflowId,
  invoiceDeliveryWorkflowId,
} from '../../workflows/contract';
import { SCHEDULES, bankSyncSchedules } from '../../worker/schedules';

// Running workflows, recorded histories and existing schedules carry these strings: they must never
// change, whatever the code around them becomes.
test('workflow ids are the business keys running workflows already carry', () => {
  expect(subscriptionWorkflowId('sub_1')).toBe('subscription/sub_1');
  expect(testClockWorkflowId('clock_1')).toBe('clock/clock_1');
  expect(testClockBillingRunWorkflowId('clock_1', Date.UTC(2026, 11, 1), 2)).toBe(
    'billing-run/test/clock_1/2026-12-01T00:00:00.000Z/2',
  );
  expect(webhookWorkflowId('nc_1')).toBe('webhooks/nc_1');
  expect(claimBatchWorkflowId(false, 'b1')).toBe('claim-batch/test/b1');
  expect(claimBatchWorkflowId(true, 'b1')).toBe('claim-batch/live/b1');
  expect(settlementRunWorkflowId(false, 'acct_1', '2026-11-23')).toBe('settlement/test/acct_1/2026-11-23');
  expect(settlementRunWorkflowId(true, 'acct_1', '2026-11-23')).toBe('settlement/live/acct_1/2026-11-23');
  expect(settlementDayWorkflowId(false, 'skil', '2026-11-23')).toBe('settlement-day/test/skil/2026-11-23');
  expect(invoiceDeliveryWorkflowId('in_1')).toBe('invoice-delivery/in_1');
});

test('workflow type names, signals, queries, updates and the task queue keep their names', () => {
  for (const [key, name] of Object.entries(WorkflowType)) expect(name).toBe(key);
  expect(
    [
      subscriptionChangedSignal,
      lifecycleQuery,
      clockTickUpdate,
      deliveriesDueSignal,
      approveSignal,
      payoutConfirmedSignal,
      settlementRunStatusQuery,
    ].map((d) => `${d.type}:${d.name}`),
  ).toEqual([
    'signal:subscriptionChanged',
    'query:lifecycle',
    'update:clockTick',
    'signal:deliveriesDue',
    'signal:approve',
    'signal:payoutConfirmed',
    'query:settlementRunStatus',
  ]);
  expect(DEFAULT_TASK_QUEUE).toBe('skil');
});

test('schedules keep their ids and workflows', () => {
  expect(
    [...SCHEDULES, ...bankSyncSchedules([{ id: 'simulated' }])].map((s) => [s.id('q'), s.workflowType]),
  ).toEqual([
    ['webhooks-relay/q', 'webhookRelay'],
    ['maintenance/q', 'maintenance'],
    ['checkout-expiry/q', 'checkoutExpiry'],
    ['billing-run/live/q', 'billingRun'],
    ['billing-run/test/q', 'billingRun'],
    ['claim-batch/test/q', 'claimBatch'],
    ['claim-batch/live/q', 'claimBatch'],
    ['settlement-day/test/q', 'settlementDay'],
    ['settlement-day/live/q', 'settlementDay'],
    ['claim-payments-sync/q', 'claimPaymentsSync'],
    ['collection-run/test/q', 'collectionRun'],
    ['collection-run/live/q', 'collectionRun'],
    ['invoice-delivery-relay/q', 'invoiceDeliveryRelay'],
    ['bank-sync/simulated/q', 'bankSync'],
  ]);
});
