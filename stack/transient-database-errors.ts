/**
 * PostgreSQL conditions that say "busy, try again", not "this request is wrong" or "our bug": no
 * pooled connection free in time, a statement cancelled by `statement_timeout` or a lock wait, a
 * serialization failure or deadlock victim, the server refusing connections for now. The API answers
 * them 503 with Retry-After (decision 0160); the idempotency layer keeps no copy of a 5xx, so the
 * client's retry with the same key runs the request again.
 */
const TRANSIENT_SQLSTATES = new Set([
  '57014', // query_canceled: statement_timeout
  '55P03', // lock_not_available: lock_timeout
  '40001', // serialization_failure
  '40P01', // deadlock_detected
  '53300', // too_many_connections
  '57P03', // cannot_connect_now
]);

export function isTransientDatabaseError(err: unknown): boolean {
  // Knex and services may wrap the driver's error; look a few causes deep.
  for (let e = err, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth++) {
    if (e.name === 'KnexTimeoutError') return true;
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && TRANSIENT_SQLSTATES.has(code)) return true;
  }
  return false;
}
