// The worker's workflows: every function exported here is a workflow type (workflows/contract.ts
// names them). Signals, queries and updates are in the contract, not here.
export { webhookChannel, type WebhookChannelInput } from './webhook-channel';
export { webhookRelay, type WebhookRelayInput } from './webhook-relay';
export { maintenance } from './maintenance';
export { checkoutExpiry } from './checkout-expiry';
export { billingRun, type BillingRunInput } from './billing-run';
export { subscriptionLifecycle, type SubscriptionWorkflowInput } from './subscription';
export { testClockAdvance, type TestClockInput } from './test-clock';
export { claimBatch, type ClaimBatchInput } from './claim-batch';
export { claimPaymentsSync } from './claim-sync';
export { settlementRun, type SettlementRunInput } from './settlement-run';
export { settlementDay, type SettlementDayInput } from './settlement-day';
export { bankSync, type BankSyncInput, type BankSyncResult } from './bank-sync';
export { invoiceDelivery, invoiceDeliveryRelay } from './invoice-delivery';
export { collectionRun, type CollectionRunInput } from './collection-run';
