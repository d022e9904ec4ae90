/**
 * PostgreSQL conditions that say "busy, try again", not "this request is wrong" or "our bug": no
 * pooled connection free in time, a statement cancelled by `statement_timeout` or a lock wait, a
 * serialization failure or deadlock victim, the server refusing connections for now, or a connection
 * the server ended or lost (a restart or failover: the chaos run, decision 0171). The API answers
 * them 503 with Retry-After (decision 0160); the idempotency layer keeps no copy of a 5xx, so the
 * client's retry with the same key runs the request again.
 */
const TRANSIENT_SQLSTATES = new Set([
  '57014', // query_canceled: statement_timeout
  '55P03', // lock_not_available: lock_timeout
  '40001', // serialization_failure
  '40P01', // deadlock_detected
  '53300', // too_many_connections
  '57P01', // admin_shutdown: the server is stopping (fast shutdown) or ended this backend
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now: starting up or in recovery
  '08000', // connection_exception
  '08003', // connection_does_not_exist
  '08006', // connection_failure
]);

// The driver's own view of a server that went away or is not back yet (a restart, a failover).
const TRANSIENT_SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT']);
// node-postgres reports a connection lost mid-query with this message and no code.
const CONNECTION_LOST = /^Connection terminated( unexpectedly)?$/;

export function isTransientDatabaseError(err: unknown): boolean {
  // Knex and services may wrap the driver's error; look a few causes deep.
  let viaFetch = false;
  for (let e = err, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth++) {
    if (e.name === 'KnexTimeoutError') return true;
    // An HTTP call to another service (fetch) fails with the same socket codes; that is not the database.
    if (e.message === 'fetch failed') viaFetch = true;
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && TRANSIENT_SQLSTATES.has(code)) return true;
    if (typeof code === 'string' && TRANSIENT_SOCKET_CODES.has(code) && !viaFetch) return true;
    if (CONNECTION_LOST.test(e.message)) return true;
  }
  return false;
}
