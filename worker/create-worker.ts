import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import type { TemporalTls } from '../stack/temporal-connection';
import type { RawFileStore } from '../adapters/object-store/raw-file-store';
import type { WorkerMetrics } from '../stack/worker-metrics';
import { createPostgresRawFileStore } from '../db/raw-bank-files';
import { WORKFLOW_INTERCEPTOR_MODULES, requestIdActivityInterceptor } from './request-id';
import type { Client } from '@temporalio/client';
import type { Knex } from '../db/knex';
import type { Logger } from '../stack/logger';
import { createWebhookActivities } from '../activities/webhooks';
import { createMaintenanceActivities } from '../activities/maintenance';
import { createCheckoutActivities } from '../activities/checkout';
import { createWebhookDispatcher } from '../engine/webhook-dispatch';
import { createBillingActivities } from '../activities/billing';
import { createSubscriptionActivities } from '../activities/subscriptions';
import { createTestClockActivities } from '../activities/test-clocks';
import { createRenewalService } from '../services/billing/renewal-service';
import { createTransitions } from '../services/subscriptions/transitions';
import { createLifecycleSteps } from '../services/subscriptions/lifecycle-steps';
import { createLifecycleState } from '../services/subscriptions/lifecycle-state';
import { createClockAdvance } from '../services/test-clocks/clock-advance';
import { createSessionExpiry } from '../services/checkout/session-expiry';
import { createHousekeeping } from '../services/maintenance/housekeeping';
import { createSubscriptionEngine } from '../engine/subscription-engine';
import { createClaimBatchStarter } from '../engine/claim-batch-starter';
import type { CardAcquirer } from '../adapters/acquirers/card-acquirer';
import type { ClaimsApi } from '../adapters/banks/claims-api';
import { createClaimActivities } from '../activities/claims';
import { createCollectionActivities } from '../activities/collection';
import { createCollectionRun } from '../services/collection/collection-run';
import { createCollectionDelivery } from '../services/collection/collection-delivery';
import { createRateTable } from '../services/collection/rate-table';
import type { Collector } from '../adapters/collectors/collector';
import { createBankSyncActivities } from '../activities/bank-sync';
import { createBankSyncService } from '../services/bank-sync/bank-sync-service';
import type { BankConnection } from '../adapters/banks/bank-connections';
import { createSettlementActivities } from '../activities/settlement';
import { createSettlementRunSteps } from '../services/settlement/settlement-run-steps';
import { createPayouts } from '../services/settlement/payouts';
import { createClaimBatchService } from '../services/claims/claim-batches';
import { createClaimPaymentsSync } from '../services/claims/claim-payments-sync';
import type { ClaimLifecycleRef } from '../services/claims/claim-outcome-notices';
import { createDueDeliveries } from '../services/channels/due-deliveries';
import { createWebhookDeliveryBatches } from '../services/channels/webhook-delivery-batch';
import type { PayoutChannel } from '../adapters/banks/payout-channel';
import type { AccessPoints } from '../adapters/access-point/access-point';
import type { Mailer } from '../adapters/mail/mailer';
import { createInvoiceDeliveryActivities } from '../activities/invoice-delivery';
import { createInvoiceDelivery } from '../services/invoices/delivery';
import { createInvoiceService } from '../services/invoices/invoices-service';
import { createSecretBox } from '../domain/secret-box';
import type { AutoDisableRule } from '../domain/webhook-schedule';

export interface WorkerDeps {
  knex: Knex;
  client: Client;
  log: Logger;
  address: string;
  /** TLS to the Temporal frontend and a Temporal Cloud API key (stack/temporal-connection.ts). */
  tls?: TemporalTls;
  apiKey?: string;
  namespace: string;
  taskQueue: string;
  /** SECRETS_ENCRYPTION_KEY: opens the signing secrets stored sealed (decision 0112). */
  secretsKey: string;
  /** A prebuilt workflow bundle (tests build it once per run); otherwise the worker bundles workflows/. */
  workflowBundlePath?: string;
  webhookAttemptTimeoutMs?: number;
  /** CIDR ranges notification channels may reach although private (decision 0111); default none. */
  webhookAllowPrivateRanges?: readonly string[];
  /** Whether test channels may reach loopback (WEBHOOK_ALLOW_LOOPBACK; decision 0225); default no. */
  webhookAllowLoopback?: boolean;
  /** When a failing channel is disabled (decision 0112); default 20 failures, none succeeding, in 72 h. */
  webhookAutoDisable?: AutoDisableRule;
  /** The webhook activities' clock (attempt end times, the disabling rule); tests move it forward. */
  webhookClock?: () => Date;
  /**
   * The card acquirer renewals are charged through: in the test environment the simulated acquirer,
   * the one service the API processes charge and refund through too (decision 0102).
   */
  acquirer: CardAcquirer;
  /** Card authorizations in flight at once per billing page. */
  chargeConcurrency?: number;
  /** The test environment's claims bank (claim batches and payment sync); unset: those activities fail. */
  claimsApi?: ClaimsApi | undefined;
  /** The live environment's claims bank (decision 0177); unset: live claim batches fail, claims stay pending. */
  liveClaimsApi?: ClaimsApi | undefined;
  /** Bank file connections (SFTP): bank sync reads their inboxes, payouts go to their outboxes. */
  bankConnections?: BankConnection[];
  /** The worker's Prometheus metrics (stack/worker-metrics.ts); unset: nothing counted. */
  metrics?: WorkerMetrics;
  /** Where raw bank files are kept once received; PostgreSQL unless told otherwise (decision 0145). */
  rawFiles?: RawFileStore;
  /** Threads that parse bank files (BANK_SYNC_PARSE_WORKERS); default 0, parse on the activity's thread. */
  bankSyncParseWorkers?: number;
  /** Runs with net at or under this (ISK) are approved by policy; unset: SETTLEMENT_AUTO_APPROVE_MAX_NET, 0 = off. */
  settlementAutoApproveMaxNet?: number;
  /** Overrides the payout channel per environment (default: pain.001 to the connection's SFTP outbox). */
  payoutChannel?: (livemode: boolean) => PayoutChannel | undefined;
  /** The Peppol access point of each environment invoices are delivered through (decision 0215); unset: none. */
  accessPoints?: AccessPoints;
  /** The mail server invoices chosen for e-mail go through; unset: such deliveries fail saying so. */
  mailer?: Mailer | undefined;
  /** The collector overdue kröfur are handed to (decision 0247); unset: hand-offs wait for one. */
  collector?: Collector | undefined;
  /** The API's public base URL, for the payer page links in collection letters; unset: no link. */
  publicBaseUrl?: string | undefined;
}

/** The one place that assembles activities and creates the Temporal worker. */
export async function createWorker(
  deps: WorkerDeps,
): Promise<{ worker: Worker; connection: NativeConnection }> {
  const connection = await NativeConnection.connect({
    address: deps.address,
    ...(deps.tls && { tls: deps.tls }),
    ...(deps.apiKey !== undefined && { apiKey: deps.apiKey }),
  });
  const dispatcher = createWebhookDispatcher({
    client: deps.client,
    knex: deps.knex,
    taskQueue: deps.taskQueue,
  });
  const wakeChannels = (ids: string[]) => dispatcher.wake(ids);
  const engine = createSubscriptionEngine({
    client: deps.client,
    knex: deps.knex,
    taskQueue: deps.taskQueue,
  });
  const { acquirer } = deps;
  // The services the claims, settlement and webhook activities call (services/claims, settlement, channels).
  const claimDeps = {
    knex: deps.knex,
    log: deps.log.child({ area: 'claims' }),
    ...(deps.metrics && { metrics: deps.metrics }),
    claimsApi: deps.claimsApi,
    liveClaimsApi: deps.liveClaimsApi,
    wakeChannels,
    notifyLifecycle: (refs: ClaimLifecycleRef[]) => engine.notify(refs),
  };
  const settlementDeps = {
    knex: deps.knex,
    log: deps.log.child({ area: 'settlement' }),
    ...(deps.metrics && { metrics: deps.metrics }),
    bankConnections: deps.bankConnections,
    payoutChannel: deps.payoutChannel,
    autoApproveMaxNet:
      deps.settlementAutoApproveMaxNet ?? (Number(process.env.SETTLEMENT_AUTO_APPROVE_MAX_NET ?? 0) || 0),
  };
  const webhookSecrets = createSecretBox(deps.secretsKey);
  const dueDeliveries = createDueDeliveries({
    knex: deps.knex,
    secrets: webhookSecrets,
    wakeChannels: (ids) => dispatcher.wake(ids),
  });
  // The services the billing, subscription, clock and housekeeping activities call.
  const transitions = createTransitions({ knex: deps.knex, wakeChannels });
  const clock = createClockAdvance({ knex: deps.knex, client: deps.client });
  const renewals = createRenewalService({
    knex: deps.knex,
    log: deps.log.child({ area: 'billing' }),
    ...(deps.metrics && { metrics: deps.metrics }),
    acquirer,
    wakeChannels,
    notifyLifecycle: (refs) => engine.notify(refs),
    ...(deps.chargeConcurrency !== undefined && { chargeConcurrency: deps.chargeConcurrency }),
  });
  const steps = createLifecycleSteps({
    knex: deps.knex,
    transitions,
    // A krafa issued when card retries run out goes to the bank at once (decision 0105).
    issueClaims: createClaimBatchStarter({
      client: deps.client,
      taskQueue: deps.taskQueue,
      log: deps.log.child({ area: 'subscriptions' }),
    }),
  });
  const activities = {
    ...createBillingActivities({ renewals }),
    ...createSubscriptionActivities({
      loadLifecycle: createLifecycleState({ knex: deps.knex }),
      steps,
      clock,
    }),
    ...createTestClockActivities({ clock }),
    ...createMaintenanceActivities({ housekeeping: createHousekeeping({ knex: deps.knex }) }),
    ...createSettlementActivities({
      settlementRuns: createSettlementRunSteps(settlementDeps),
      payouts: createPayouts(settlementDeps),
    }),
    ...createCheckoutActivities({ sessionExpiry: createSessionExpiry({ knex: deps.knex }) }),
    // Without a bank connection the bank sync activities fail as NoBankConnection.
    ...createBankSyncActivities({
      bankSync: createBankSyncService({
        knex: deps.knex,
        client: deps.client,
        log: deps.log.child({ area: 'bank-sync' }),
        ...(deps.metrics && { metrics: deps.metrics }),
        bankConnections: deps.bankConnections ?? [],
        rawFiles: deps.rawFiles ?? createPostgresRawFileStore(deps.knex),
        parseWorkers: deps.bankSyncParseWorkers ?? 0,
        wakeChannels,
      }),
    }),
    ...createClaimActivities({
      claimBatches: createClaimBatchService(claimDeps),
      claimPaymentsSync: createClaimPaymentsSync(claimDeps),
    }),
    ...createCollectionActivities({
      collection: createCollectionRun({
        knex: deps.knex,
        log: deps.log.child({ area: 'collection' }),
        rates: createRateTable({ knex: deps.knex }),
        delivery: createCollectionDelivery({
          knex: deps.knex,
          log: deps.log.child({ area: 'collection' }),
          claimsApi: deps.claimsApi,
          liveClaimsApi: deps.liveClaimsApi,
          mailer: deps.mailer,
          collector: deps.collector,
          publicBaseUrl: deps.publicBaseUrl,
        }),
        wakeChannels,
      }),
    }),
    ...createInvoiceDeliveryActivities({
      delivery: createInvoiceDelivery({
        knex: deps.knex,
        invoices: createInvoiceService({ knex: deps.knex }),
        accessPoints: deps.accessPoints ?? {},
        mailer: deps.mailer,
        log: deps.log.child({ area: 'invoice-delivery' }),
        wakeChannels,
      }),
      client: deps.client,
      taskQueue: deps.taskQueue,
    }),
    ...createWebhookActivities({
      dueDeliveries,
      deliveryBatches: createWebhookDeliveryBatches({
        knex: deps.knex,
        log: deps.log.child({ area: 'webhooks' }),
        ...(deps.metrics && { metrics: deps.metrics }),
        secrets: webhookSecrets,
        wakeChannels: (ids) => dispatcher.wake(ids),
        dueDeliveries,
        ...(deps.webhookAttemptTimeoutMs !== undefined && { attemptTimeoutMs: deps.webhookAttemptTimeoutMs }),
        allowPrivateRanges: deps.webhookAllowPrivateRanges ?? [],
        allowLoopback: deps.webhookAllowLoopback ?? false,
        ...(deps.webhookAutoDisable && { autoDisable: deps.webhookAutoDisable }),
        ...(deps.webhookClock && { clock: deps.webhookClock }),
      }),
    }),
  };
  const workflowSource: Pick<WorkerOptions, 'workflowBundle' | 'workflowsPath'> = deps.workflowBundlePath
    ? { workflowBundle: { codePath: deps.workflowBundlePath } }
    : { workflowsPath: require.resolve('../workflows') };
  const worker = await Worker.create({
    connection,
    namespace: deps.namespace,
    taskQueue: deps.taskQueue,
    activities,
    ...workflowSource,
    // The request id from the API's headers into workflow and activity logs (decision 0178); a
    // prebuilt bundle has the workflow modules compiled in (WORKFLOW_INTERCEPTOR_MODULES).
    interceptors: {
      activity: [requestIdActivityInterceptor],
      ...(!deps.workflowBundlePath && { workflowModules: WORKFLOW_INTERCEPTOR_MODULES }),
    },
  });
  return { worker, connection };
}
