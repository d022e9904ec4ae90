import autocannon from 'autocannon';

/**
 * The load generator of bench/api-load.ts, run as its own process so that it never shares an event
 * loop with the server it measures. Reads one job as JSON from argv[2], runs autocannon, and prints
 * one JSON line: autocannon's figures plus how many requests it sent (each with its own
 * Idempotency-Key when `idempotencyPrefix` is set, so the parent can count the rows they created).
 */
export interface LoadJob {
  url: string;
  method: 'GET' | 'POST';
  /** API keys, taken in turn so that no key meets its rate limit; none for the baseline. */
  keys: string[];
  connections: number;
  durationSeconds: number;
  /** Requests per second across all connections; unset: as fast as the server answers. */
  overallRate?: number;
  /** POST: each request sends `${prefix}${n}` as its Idempotency-Key and in its metadata. */
  idempotencyPrefix?: string;
  /** GET: every answer must be this body exactly. */
  expectBody?: string;
}

export interface LoadResult {
  sent: number;
  requests: number;
  rps: number;
  ok2xx: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  mismatches: number;
  statusCodes: Record<string, number>;
  p50_ms: number;
  p90_ms: number;
  p99_ms: number;
  max_ms: number;
  seconds: number;
}

async function main(): Promise<void> {
  const job = JSON.parse(process.argv[2] ?? '{}') as LoadJob;
  let n = 0;
  // autocannon's own expectBody cannot be combined with per-request setup: counted here instead.
  let mismatches = 0;
  const result = await autocannon({
    url: job.url,
    connections: job.connections,
    duration: job.durationSeconds,
    ...(job.overallRate !== undefined && { overallRate: job.overallRate }),
    timeout: 10,
    requests: [
      {
        method: job.method,
        setupRequest: (req) => {
          const i = n++;
          const headers: Record<string, string> = { 'content-type': 'application/json' };
          const key = job.keys[i % job.keys.length];
          if (key) headers.authorization = `Bearer ${key}`;
          if (job.method !== 'POST') return { ...req, headers };
          const id = `${job.idempotencyPrefix ?? 'b-'}${i}`;
          if (job.idempotencyPrefix && key) headers['idempotency-key'] = id;
          return { ...req, headers, body: JSON.stringify({ amount: 1000, metadata: { bench_key: id } }) };
        },
        onResponse: (status, body) => {
          if (job.expectBody !== undefined && status < 300 && body !== job.expectBody) mismatches++;
        },
      },
    ],
  });
  const codes: Record<string, number> = {};
  for (const [code, { count }] of Object.entries(result.statusCodeStats ?? {})) codes[code] = count ?? 0;
  const out: LoadResult = {
    sent: n,
    requests: result.requests.total,
    rps: Math.round(result.requests.total / result.duration),
    ok2xx: result['2xx'],
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    mismatches,
    statusCodes: codes,
    p50_ms: result.latency.p50,
    p90_ms: result.latency.p90,
    p99_ms: result.latency.p99,
    max_ms: result.latency.max,
    seconds: result.duration,
  };
  console.log(JSON.stringify(out));
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
