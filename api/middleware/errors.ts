import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { Logger } from '../../stack/logger';
import { ApiError, InvalidRequestError } from '../../domain/errors';
import { context } from '../../stack/request-context';

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
 * The one error handler: ApiErrors become their envelope; anything else is our fault, logged with
 * its stack and answered 500 `api_error` with only the request id, never the stack.
 */
export function errorHandler(log: Logger): ErrorRequestHandler {
  return (err: unknown, _req, res, _next) => {
    if (res.headersSent) return;
    if (err instanceof ApiError) {
      res.status(err.status).json({ error: err.toBody() });
      return;
    }
    const requestId = context(res).requestId;
    log.error({ err, requestId }, 'unhandled error');
    res.status(500).json({
      error: { type: 'api_error', message: `An internal error occurred. Request id: ${requestId}` },
    });
  };
}
