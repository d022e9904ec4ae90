export { webhookChannel, deliveriesDueSignal, type WebhookChannelInput } from './webhook-channel';
export { webhookRelay, type WebhookRelayInput } from './webhook-relay';
export { maintenance } from './maintenance';
export { checkoutExpiry } from './checkout-expiry';
export { billingRun, type BillingRunInput } from './billing-run';
export {
  subscriptionLifecycle,
  subscriptionChangedSignal,
  lifecycleQuery,
  type SubscriptionWorkflowInput,
} from './subscription';
export { testClockAdvance, type TestClockInput } from './test-clock';
export { clockTickUpdate } from './time';
export { claimBatch, type ClaimBatchInput } from './claim-batch';
export { claimPaymentsSync } from './claim-sync';
export {
  settlementRun,
  approveSignal,
  payoutConfirmedSignal,
  settlementRunStatusQuery,
  type SettlementRunInput,
} from './settlement-run';
export { settlementDay, type SettlementDayInput } from './settlement-day';
export { bankSync, type BankSyncInput, type BankSyncResult } from './bank-sync';
