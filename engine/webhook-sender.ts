import http from 'node:http';
import https from 'node:https';
import { publicOnlyLookup } from './url-safety';

export interface PostResult {
  /** HTTP status, or null when no response arrived. */
  status: number | null;
  latencyMs: number;
  /** Why the attempt failed, when it did; null on a 2xx. */
  error: string | null;
}

const MAX_ERROR_BODY = 512;

// Connections are kept alive per host: a channel receives its deliveries over a few sockets instead
// of one handshake each. Addresses are vetted when a socket is opened (publicOnlyLookup), so a reused
// socket was vetted too.
const agents = {
  'http:': new http.Agent({ keepAlive: true, maxSockets: 16 }),
  'https:': new https.Agent({ keepAlive: true, maxSockets: 16 }),
};

/**
 * POSTs a webhook body once. Success is a 2xx and nothing else; redirects are not followed (Node's
 * http client never follows them); the whole attempt, connect to last byte, is cut at `timeoutMs`.
 * Never throws for a network or HTTP failure: those are outcomes to record, not faults to retry.
 */
export async function postWebhook(input: {
  url: string;
  body: string;
  headers: Record<string, string>;
  timeoutMs: number;
  publicOnly: boolean;
}): Promise<PostResult> {
  const started = performance.now();
  const url = new URL(input.url);
  const client = url.protocol === 'https:' ? https : http;
  return new Promise<PostResult>((resolve) => {
    const done = (status: number | null, error: string | null) =>
      resolve({ status, error, latencyMs: Math.round(performance.now() - started) });
    const req = client.request(
      url,
      {
        method: 'POST',
        headers: {
          ...input.headers,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(input.body),
          'user-agent': 'Skil-Webhooks/1.0',
        },
        ...(input.publicOnly && { lookup: publicOnlyLookup }),
        signal: AbortSignal.timeout(input.timeoutMs),
        agent: url.protocol === 'https:' ? agents['https:'] : agents['http:'],
      },
      (res) => {
        const status = res.statusCode ?? 0;
        let sample = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          if (sample.length < MAX_ERROR_BODY) sample += chunk;
        });
        res.on('end', () => {
          if (status >= 200 && status < 300) return done(status, null);
          const location = res.headers.location ? ` (redirect to ${res.headers.location} not followed)` : '';
          done(status, `HTTP ${status}${location}: ${sample.slice(0, MAX_ERROR_BODY)}`.trim());
        });
        res.on('error', (err) => done(status, `response aborted: ${err.message}`));
      },
    );
    req.on('error', (err: NodeJS.ErrnoException) => {
      const reason =
        err.name === 'AbortError' || err.name === 'TimeoutError'
          ? `timed out after ${input.timeoutMs} ms`
          : err.message;
      done(null, reason);
    });
    req.end(input.body);
  });
}
