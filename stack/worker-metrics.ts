import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * The worker's Prometheus metrics (decision 0146): what it did, counted in the process that did
 * it (Prometheus sums the workers), and the webhook backlog read from the database at each scrape
 * (the same figure from every worker, so dashboards take its max, not its sum).
 */
export function createWorkerMetrics(deps: {
  backlog?: () => Promise<{ pending: number; oldestDueSeconds: number }>;
}) {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'skil_worker_' });
  const counter = <L extends string>(name: string, help: string, labelNames: readonly L[]) =>
    new Counter<L>({ name, help, labelNames, registers: [registry] });

  // Both backlog gauges come from one read per scrape (gauges are collected concurrently).
  let read: { at: number; value: Promise<{ pending: number; oldestDueSeconds: number }> } | null = null;
  const backlog = () => {
    if (!read || Date.now() - read.at > 1_000)
      read = {
        at: Date.now(),
        value: deps.backlog ? deps.backlog() : Promise.resolve({ pending: 0, oldestDueSeconds: 0 }),
      };
    return read.value;
  };
  return {
    registry,
    /** Renewal periods finished by a billing page, by why they were charged and how they ended. */
    renewals: counter('skil_renewals_total', 'Renewal periods finished, by reason and outcome', [
      'reason',
      'outcome',
    ] as const),
    /** Card authorizations the worker made, by outcome (paid, failed). */
    charges: counter('skil_card_charges_total', 'Off-session card charges made by the worker, by outcome', [
      'outcome',
    ] as const),
    /** Kröfur the bank answered for in a batch, by outcome (issued, refused). */
    claims: counter('skil_claims_total', 'Kröfur submitted to the bank, by outcome', ['outcome'] as const),
    /** Claim payments recorded from the bank. */
    claimPayments: counter('skil_claim_payments_total', 'Claim payments recorded from the bank', [] as const),
    /** Bank files synced, by the status they ended in, and their entries. */
    bankFiles: counter('skil_bank_files_total', 'Bank files synced, by status', ['status'] as const),
    bankFileEntries: counter('skil_bank_file_entries_total', 'Entries of processed bank files', [] as const),
    /** Settlement runs gathered, by the status they were gathered in. */
    settlementRuns: counter('skil_settlement_runs_total', 'Settlement runs gathered, by status', [
      'status',
    ] as const),
    /** Webhook attempts by result, and how long the receiver took. */
    webhookAttempts: counter('skil_webhook_attempts_total', 'Webhook delivery attempts, by result', [
      'result',
    ] as const),
    webhookAttemptSeconds: new Histogram({
      name: 'skil_webhook_attempt_seconds',
      help: 'Time a webhook receiver took to answer an attempt',
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [registry],
    }),
    /** From the event's commit to its successful delivery: what a merchant waits. */
    webhookDeliverySeconds: new Histogram({
      name: 'skil_webhook_delivery_latency_seconds',
      help: 'Time from an event to its successful delivery to a channel',
      buckets: [0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300, 3600],
      registers: [registry],
    }),
    backlog: new Gauge({
      name: 'skil_webhook_backlog',
      help: 'Webhook deliveries not yet made (due, or waiting for a retry), across all merchants',
      registers: [registry],
      async collect() {
        this.set((await backlog()).pending);
      },
    }),
    backlogAge: new Gauge({
      name: 'skil_webhook_backlog_oldest_due_seconds',
      help: 'How long the oldest due webhook delivery has waited',
      registers: [registry],
      async collect() {
        this.set((await backlog()).oldestDueSeconds);
      },
    }),
  };
}

export type WorkerMetrics = ReturnType<typeof createWorkerMetrics>;

/** Serves `GET /metrics` of a registry on its own port (a worker has no HTTP server otherwise). */
export async function serveMetrics(
  registry: Registry,
  host: string,
  port: number,
): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createServer((req, res) => {
    if (req.method !== 'GET' || req.url !== '/metrics') {
      res.writeHead(404).end();
      return;
    }
    registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text),
      () => res.writeHead(500).end(),
    );
  });
  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  const { port: bound } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${bound}/metrics`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
