import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from './logger';

/** Where a backend listens. */
export type Backend = { host: string; port: number };

export interface LoadBalancer {
  url: string;
  port: number;
  /** Requests answered by each backend (`host:port`), and those no backend could take. */
  counts(): { byBackend: Record<string, number>; unavailable: number; retried: number };
  stop(): Promise<void>;
}

// A backend that refused a connection is skipped for this long, then tried again.
const DOWN_FOR_MS = 2_000;
// Headers of one hop (RFC 9110 §7.6.1), never forwarded.
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
]);

/**
 * A small round-robin HTTP load balancer in front of the API processes of the cluster. Why our own: the cluster must
 * start from a fresh clone with `npm ci` alone (no nginx or HAProxy on the machine), and what it needs is small:
 * - round robin over the backends, skipping one that refuses connections (killed, restarting) for 2 s;
 * - a request whose connection was refused is sent to the next backend: it never reached the first, so this is safe
 *   even for a POST; so is a read or an idempotent write whose kept-alive connection turns out dead; a backend that
 *   dies mid-request answers 502, as any proxy does, and the client's Idempotency-Key makes its retry safe;
 * - `X-Forwarded-For` with the client's address appended (the APIs run with TRUST_PROXY=1: they trust exactly this
 *   one hop, so a client cannot choose its own address for the per-address rate limits), `X-Forwarded-Proto` and
 *   `-Host`;
 * - responses streamed as they come, so `/mcp`'s event streams pass through.
 */
export async function startLoadBalancer(opts: {
  host: string;
  port: number;
  backends: Backend[];
  log: Logger;
}): Promise<LoadBalancer> {
  const { backends, log } = opts;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  const downUntil = new Map<string, number>();
  const byBackend: Record<string, number> = {};
  let unavailable = 0;
  let retried = 0;
  let next = 0;
  const key = (b: Backend) => `${b.host}:${b.port}`;

  /** Backends in the order to try them for one request: round robin, the ones marked down last. */
  const order = (): Backend[] => {
    const start = next++ % backends.length;
    const rotated = backends.slice(start).concat(backends.slice(0, start));
    const now = Date.now();
    const up = rotated.filter((b) => (downUntil.get(key(b)) ?? 0) <= now);
    return up.concat(rotated.filter((b) => !up.includes(b)));
  };

  const server = http.createServer((req, res) => {
    // Buffered so that a request refused by one backend can be sent whole to the next.
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => forward(req, res, Buffer.concat(chunks), order()));
    req.on('error', () => res.destroy());
  });

  const forward = (req: http.IncomingMessage, res: http.ServerResponse, body: Buffer, tries: Backend[]) => {
    const backend = tries[0];
    if (backend === undefined) {
      unavailable += 1;
      res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '1' });
      res.end(
        JSON.stringify({
          error: {
            type: 'api_error',
            code: 'service_unavailable',
            message: 'No API process is reachable; try again shortly.',
          },
        }),
      );
      return;
    }
    const headers: http.OutgoingHttpHeaders = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (!HOP_BY_HOP.has(name) && value !== undefined) headers[name] = value;
    }
    const client = req.socket.remoteAddress ?? '';
    const prior = req.headers['x-forwarded-for'];
    headers['x-forwarded-for'] = prior ? `${String(prior)}, ${client}` : client;
    headers['x-forwarded-proto'] ??= 'http';
    if (req.headers.host !== undefined) headers['x-forwarded-host'] ??= req.headers.host;
    headers['content-length'] = String(body.length);

    let answered = false;
    const upstream = http.request(
      { host: backend.host, port: backend.port, method: req.method, path: req.url, headers, agent },
      (up) => {
        answered = true;
        byBackend[key(backend)] = (byBackend[key(backend)] ?? 0) + 1;
        const out: http.OutgoingHttpHeaders = {};
        for (const [name, value] of Object.entries(up.headers)) {
          if (!HOP_BY_HOP.has(name) && value !== undefined) out[name] = value;
        }
        res.writeHead(up.statusCode ?? 502, up.statusMessage, out);
        up.pipe(res);
        up.on('error', () => res.destroy());
      },
    );
    upstream.on('error', (err: NodeJS.ErrnoException) => {
      if (answered) {
        res.destroy();
        return;
      }
      // A kept-alive connection the backend closed (it died or restarted since) fails on reuse; the request may
      // have reached it only if it was alive, so it is sent again only when doing so twice is harmless.
      const staleSocket = upstream.reusedSocket && err.code === 'ECONNRESET' && replayable(req);
      if (err.code === 'ECONNREFUSED' || staleSocket) {
        downUntil.set(key(backend), Date.now() + DOWN_FOR_MS);
        retried += 1;
        forward(req, res, body, tries.slice(1));
        return;
      }
      log.warn({ backend: key(backend), err: err.message, path: req.url }, 'backend failed mid-request');
      if (!res.headersSent) {
        res.writeHead(502, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            error: {
              type: 'api_error',
              code: 'bad_gateway',
              message: 'The API process failed while answering; retry with the same Idempotency-Key.',
            },
          }),
        );
      } else res.destroy();
    });
    // A client that goes away (an MCP stream closed) closes the upstream request too.
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
    upstream.end(body);
  };

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const url = `http://${opts.host}:${port}`;
  log.info({ url, backends: backends.map(key) }, 'load balancer listening');
  return {
    url,
    port,
    counts: () => ({ byBackend: { ...byBackend }, unavailable, retried }),
    stop: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      agent.destroy();
    },
  };
}

/** Safe to send twice: a read, or a write that carries an Idempotency-Key (the API replays its first answer). */
function replayable(req: http.IncomingMessage): boolean {
  return (
    ['GET', 'HEAD', 'OPTIONS'].includes(req.method ?? '') || req.headers['idempotency-key'] !== undefined
  );
}
