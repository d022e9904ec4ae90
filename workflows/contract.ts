/**
 * The Temporal contract: every workflow type name, workflow and schedule id, signal, query, update,
 * the default task queue and the failure types, defined once. Workflow code and clients (api,
 * services, engine, activities, worker) both import it, so it does no I/O and uses no Node API.
 * Names and ids are business keys that running histories and schedules already carry: they never
 * change (test/integration/replay.test.ts replays recorded histories).
 */
import {
  ActivityFailure,
  ApplicationFailure,
  ChildWorkflowFailure,
  defineQuery,
  defineSignal,
  defineUpdate,
} from '@temporalio/workflow';
import type { LifecycleStep } from '../domain/subscription-lifecycle';
import type * as workflows from './index';

/**
 * The Temporal header that carries the id of the API request a workflow, signal, update or
 * activity is for (decision 0178).
 */
export const REQUEST_ID_HEADER = 'skil-request-id';

/** The task queue when configuration names none (TEMPORAL_TASK_QUEUE). */
export const DEFAULT_TASK_QUEUE = 'skil';

/** Every workflow function the worker hosts, by its type name. */
export type Workflows = typeof workflows;

/** Workflow type names; the compiler checks that they are exactly the worker's workflows. */
export const WorkflowType = {
  subscriptionLifecycle: 'subscriptionLifecycle',
  billingRun: 'billingRun',
  testClockAdvance: 'testClockAdvance',
  claimBatch: 'claimBatch',
  claimPaymentsSync: 'claimPaymentsSync',
  bankSync: 'bankSync',
  settlementDay: 'settlementDay',
  settlementRun: 'settlementRun',
  webhookChannel: 'webhookChannel',
  webhookRelay: 'webhookRelay',
  maintenance: 'maintenance',
  checkoutExpiry: 'checkoutExpiry',
  invoiceDelivery: 'invoiceDelivery',
  invoiceDeliveryRelay: 'invoiceDeliveryRelay',
  collectionRun: 'collectionRun',
} as const satisfies { [K in keyof Workflows]: K };

// ── Workflow ids (architecture, "Workflows") ──────────────────────────────────────────────────────

const env = (livemode: boolean) => (livemode ? 'live' : 'test');

/** `subscription/{sub_id}`: the lifecycle of one subscription. */
export function subscriptionWorkflowId(subscriptionId: string): string {
  return `subscription/${subscriptionId}`;
}

/** `clock/{clock_id}`: the advance of a test clock. */
export function testClockWorkflowId(clockId: string): string {
  return `clock/${clockId}`;
}

/** `billing-run/test/{clock_id}/{instant}/{pass}`: a billing run inside a test clock's advance. */
export function testClockBillingRunWorkflowId(clockId: string, at: number, pass: number): string {
  return `billing-run/test/${clockId}/${new Date(at).toISOString()}/${pass}`;
}

/** `collection-run/test/{clock_id}/{instant}`: a collection run inside a test clock's advance (decision 0246). */
export function testClockCollectionRunWorkflowId(clockId: string, at: number): string {
  return `collection-run/test/${clockId}/${new Date(at).toISOString()}`;
}

/** `webhooks/{nc_id}`: the delivery loop of one notification channel. */
export function webhookWorkflowId(channelId: string): string {
  return `webhooks/${channelId}`;
}

/** What an invoice's delivery workflow is started with. */
export interface InvoiceDeliveryInput {
  merchantId: string;
  livemode: boolean;
  invoiceId: string;
}

/** `invoice-delivery/{invoice_id}`: the delivery of one issued invoice (decision 0217). */
export function invoiceDeliveryWorkflowId(invoiceId: string): string {
  return `invoice-delivery/${invoiceId}`;
}

/** `claim-batch/{env}/{batch}`: one batch of claims issued to the bank. */
export function claimBatchWorkflowId(livemode: boolean, batch: string): string {
  return `claim-batch/${env(livemode)}/${batch}`;
}

/** `claim-payments-sync/now/{reason}`: a claim payments sync run at once, outside its schedule. */
export function claimPaymentsSyncNowWorkflowId(reason: string): string {
  return `claim-payments-sync/now/${reason}`;
}

/** `settlement/{env}/{merchant_id}/{yyyy-mm-dd}`: one merchant's run for one Iceland banking day. */
export function settlementRunWorkflowId(
  livemode: boolean,
  merchantId: string,
  settlementDate: string,
): string {
  return `settlement/${env(livemode)}/${merchantId}/${settlementDate}`;
}

/**
 * `settlement-day/{env}/{task_queue}/{yyyy-mm-dd}`: opens the day's settlement runs. It carries the
 * task queue as the schedule ids do: a day run on demand joins one already running under the same
 * id, and a deployment (or a test run) sharing the namespace must not join another's (decision 0191).
 */
export function settlementDayWorkflowId(
  livemode: boolean,
  taskQueue: string,
  settlementDate: string,
): string {
  return `settlement-day/${env(livemode)}/${taskQueue}/${settlementDate}`;
}

/**
 * Schedule ids. They carry the task queue, so deployments (and test runs) sharing a namespace stay
 * apart; the workflows a schedule starts are named after it.
 */
export const scheduleId = {
  webhookRelay: (taskQueue: string) => `webhooks-relay/${taskQueue}`,
  maintenance: (taskQueue: string) => `maintenance/${taskQueue}`,
  checkoutExpiry: (taskQueue: string) => `checkout-expiry/${taskQueue}`,
  invoiceDeliveryRelay: (taskQueue: string) => `invoice-delivery-relay/${taskQueue}`,
  billingRun: (livemode: boolean, taskQueue: string) => `billing-run/${env(livemode)}/${taskQueue}`,
  claimBatch: (livemode: boolean, taskQueue: string) => `claim-batch/${env(livemode)}/${taskQueue}`,
  settlementDay: (livemode: boolean, taskQueue: string) => `settlement-day/${env(livemode)}/${taskQueue}`,
  claimPaymentsSync: (taskQueue: string) => `claim-payments-sync/${taskQueue}`,
  /** The daily collection run of overdue kröfur (decision 0246). */
  collectionRun: (livemode: boolean, taskQueue: string) => `collection-run/${env(livemode)}/${taskQueue}`,
  /** Bank sync, one per bank connection (`bank-sync/{connection}`). */
  bankSync: (connection: string, taskQueue: string) => `bank-sync/${connection}/${taskQueue}`,
} as const;

// ── Signals, queries and updates ──────────────────────────────────────────────────────────────────

/** Subscription: something changed in Postgres (card, cancel flag, resume): look again. */
export const subscriptionChangedSignal = defineSignal('subscriptionChanged');

/** Subscription: the last lifecycle step decided, for operators and tests. */
export const lifecycleQuery = defineQuery<LifecycleStep | null>('lifecycle');

/**
 * A workflow bound to a test clock: the clock advanced to `now` (epoch ms). The workflow does
 * everything due up to then and answers once it waits for something later, or has finished.
 */
export const clockTickUpdate = defineUpdate<void, [number]>('clockTick');

/** Webhook channel: new deliveries are due, or the channel was re-enabled: look again. */
export const deliveriesDueSignal = defineSignal('deliveriesDue');

/** Settlement run: an operator (or the auto-approve policy) approved the run in the database: go on. */
export const approveSignal = defineSignal('approve');

/** What bank sync says of a confirmed payout; the run re-reads the database whatever it says. */
export interface PayoutConfirmation {
  payoutId: string;
  settlementRunId: string;
  bankEntryId: number;
  amount: number;
}

/** Settlement run: bank sync matched the payout's debit and marked payout and run paid: finish. */
export const payoutConfirmedSignal = defineSignal<[confirmation?: PayoutConfirmation]>('payoutConfirmed');

/** Settlement run: the status the workflow last read. */
export const settlementRunStatusQuery = defineQuery<string>('settlementRunStatus');

// ── Failure types ─────────────────────────────────────────────────────────────────────────────────

/**
 * `ApplicationFailure` types, one vocabulary for activities and workflows (STYLE.md 10). A failure
 * of one of these types is final: it is thrown non-retryable, and retry policies list them too.
 */
export const FailureType = {
  /** No bank connection (claims service or SFTP) is configured for the request. */
  NoBankConnection: 'NoBankConnection',
  /** The object the workflow looks after is gone. */
  NotFound: 'NotFound',
  SettlementRunMissing: 'SettlementRunMissing',
  /** The settlement run is not in the state the step needs. */
  SettlementRunState: 'SettlementRunState',
  /**
   * The bank or acquirer refused who we are: credentials, client certificate, or a host key that is
   * not the pinned one. Asking again cannot help, and repeated logins can lock the account.
   */
  AdapterAccessRefused: 'AdapterAccessRefused',
  /** The bank or acquirer refused the request itself (4xx, a claim rejection, a refused card). */
  AdapterRequestRefused: 'AdapterRequestRefused',
} as const;
export type FailureType = (typeof FailureType)[keyof typeof FailureType];

/** The final answers of the outside world (activities/adapter-failure.ts makes them). */
export const ADAPTER_REFUSALS: readonly FailureType[] = [
  FailureType.AdapterAccessRefused,
  FailureType.AdapterRequestRefused,
];

/**
 * The `ApplicationFailure` behind an activity's or child workflow's failure, as a workflow catches
 * it; undefined for anything else (timeouts, cancellation, a failure without a type).
 */
export function applicationFailureOf(err: unknown): ApplicationFailure | undefined {
  const cause = err instanceof ActivityFailure || err instanceof ChildWorkflowFailure ? err.cause : err;
  return cause instanceof ApplicationFailure ? cause : undefined;
}

/** The outside world's final refusal behind a failure a workflow caught; undefined for anything else. */
export function adapterRefusalOf(err: unknown): ApplicationFailure | undefined {
  const failure = applicationFailureOf(err);
  return ADAPTER_REFUSALS.some((type) => type === failure?.type) ? failure : undefined;
}
