import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';

/** The HTTP(S) transport under the IOBWS client: one JSON request, no retries or auth of its own. */

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: unknown;
}

export interface AgentOptions {
  /**
   * PEM paths: the client certificate and key (mutual TLS), and the CA of the bank's certificate
   * (a bank whose certificate is not signed by a public CA). Either may come alone.
   */
  tls?: { certPath?: string; keyPath?: string; caPath?: string; passphrase?: string };
  maxSockets?: number;
}

/** A keep-alive agent for the bank's origin; HTTPS with the client certificate when configured. */
export function createAgent(base: URL, opts: AgentOptions): http.Agent {
  const maxSockets = opts.maxSockets ?? 16;
  if (base.protocol !== 'https:') return new http.Agent({ keepAlive: true, maxSockets });
  return new https.Agent({
    keepAlive: true,
    maxSockets,
    ...(opts.tls && {
      ...(opts.tls.certPath && { cert: readFileSync(opts.tls.certPath) }),
      ...(opts.tls.keyPath && { key: readFileSync(opts.tls.keyPath) }),
      ...(opts.tls.caPath && { ca: readFileSync(opts.tls.caPath) }),
      ...(opts.tls.passphrase && { passphrase: opts.tls.passphrase }),
    }),
  });
}

/** Sends one request; resolves with any status, rejects only on a network failure or timeout. */
export function sendJson(
  agent: http.Agent,
  timeoutMs: number,
  method: string,
  url: URL,
  headers: http.OutgoingHttpHeaders,
  payload: string | undefined,
): Promise<RawResponse> {
  const lib = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = lib.request(
      url,
      {
        method,
        agent,
        headers:
          payload === undefined ? headers : { ...headers, 'content-length': Buffer.byteLength(payload) },
        timeout: timeoutMs,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let body: unknown = text;
          if (text && /json/.test(res.headers['content-type'] ?? '')) {
            try {
              body = JSON.parse(text);
            } catch {
              body = text;
            }
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error('request timed out')));
    req.on('error', reject);
    req.end(payload);
  });
}

/** Retry-After in ms (seconds or an HTTP date), capped at 30 s. */
export function parseRetryAfter(value: string | string[] | undefined): number | null {
  if (typeof value !== 'string') return null;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.min(seconds * 1000, 30_000);
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, Math.min(at - Date.now(), 30_000));
}
