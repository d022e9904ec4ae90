import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

interface TarnPool {
  numUsed(): number;
  numFree(): number;
  numPendingAcquires(): number;
  max: number;
}

/**
 * The API's Prometheus metrics, in a registry of their own (several apps share a test process).
 * `db` is the knex instance, read only for its connection pool's gauges.
 */
export function createMetrics(db: { client: unknown }) {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'skil_' });

  const httpRequests = new Counter({
    name: 'skil_http_requests_total',
    help: 'HTTP requests answered, by method, route template and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const httpDuration = new Histogram({
    name: 'skil_http_request_duration_seconds',
    help: 'HTTP request latency, by method, route template and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  const workflowStarts = new Counter({
    name: 'skil_workflow_starts_total',
    help: 'Workflow start and signal-with-start requests sent to Temporal, by workflow type',
    labelNames: ['workflow'] as const,
    registers: [registry],
  });

  const pool = () => (db.client as { pool?: TarnPool }).pool;
  const poolGauge = (name: string, help: string, read: (p: TarnPool) => number) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        const p = pool();
        this.set(p ? read(p) : 0);
      },
    });
  poolGauge('skil_pg_pool_used', 'PostgreSQL connections in use', (p) => p.numUsed());
  poolGauge('skil_pg_pool_free', 'PostgreSQL connections idle in the pool', (p) => p.numFree());
  poolGauge('skil_pg_pool_pending', 'Requests waiting for a PostgreSQL connection', (p) =>
    p.numPendingAcquires(),
  );
  poolGauge('skil_pg_pool_max', 'Largest size of the PostgreSQL pool', (p) => p.max);

  return { registry, httpRequests, httpDuration, workflowStarts };
}

export type Metrics = ReturnType<typeof createMetrics>;
