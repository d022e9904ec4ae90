import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { Logger } from '../../stack/logger';
import { ApiError, InvalidRequestError } from '../../domain/errors';
import { context } from '../../stack/request-context';
import { isTransientDatabaseError } from '../../stack/transient-database-errors';

/** Seconds a client waits before retrying a request the database was too busy for. */
const BUSY_RETRY_AFTER_SECONDS = 1;

/** Unknown paths answer in the envelope too. */
export const routeNotFound: RequestHandler = (req, _res, next) => {
  next(
    new InvalidRequestError(`Unrecognized request URL (${req.method}: ${req.path})`, {
      status: 404,
      code: 'route_not_found',
    }),
  );
};

/**
 * The one error handler: ApiErrors become their envelope; a database too busy to answer in time is
 * 503 `database_busy` with Retry-After (decision 0160); anything else is our fault, logged with its
 * stack and answered 500 `api_error` with only the request id, never the stack.
 */
export function errorHandler(log: Logger): ErrorRequestHandler {
  return (err: unknown, _req, res, _next) => {
    if (res.headersSent) return;
    if (err instanceof ApiError) {
      res.status(err.status).json({ error: err.toBody() });
      return;
    }
    const requestId = context(res).requestId;
    if (isTransientDatabaseError(err)) {
      log.warn({ err, requestId }, 'database busy');
      res.setHeader('Retry-After', String(BUSY_RETRY_AFTER_SECONDS));
      res.status(503).json({
        error: {
          type: 'api_error',
          code: 'database_busy',
          message: `The service was too busy to complete this request in time. Retry after ${BUSY_RETRY_AFTER_SECONDS} s with the same Idempotency-Key. Request id: ${requestId}`,
        },
      });
      return;
    }
    log.error({ err, requestId }, 'unhandled error');
    res.status(500).json({
      error: { type: 'api_error', message: `An internal error occurred. Request id: ${requestId}` },
    });
  };
}
