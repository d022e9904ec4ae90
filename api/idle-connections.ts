import type { Server } from 'node:http';

/**
 * Holds idle keep-alive connections for 65 s instead of Node's 5 s. A client that sends on an idle
 * connection just as the server closes it gets ECONNRESET for a request that never arrived: Node's
 * own fetch times idle connections on a one-second clock and reuses one up to a second before the
 * server's limit, which a busy event loop on either side overshoots. The server must be the last to
 * let go, behind a load balancer too (they keep idle connections 60 s), so the limit sits above
 * theirs; headers must still arrive within the usual bound after a request starts.
 */
export function holdIdleConnections(server: Server): Server {
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  return server;
}
