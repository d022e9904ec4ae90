import type { RequestHandler, Response } from 'express';
import type { IdempotencyService } from '../../services/idempotency';
import type { Logger } from '../../stack/logger';
import { scopeOf } from '../../stack/request-context';

/**
 * `Idempotency-Key` on POST and PATCH (architecture, "API conventions"). The first response is
 * stored for 24 hours and replayed byte for byte; the same key with other parameters is refused;
 * a key whose first request is still running answers 409. A 5xx is not stored, so it may be retried.
 */
export function idempotency(store: IdempotencyService, log: Logger): RequestHandler {
  return async (req, res, next) => {
    if (req.method !== 'POST' && req.method !== 'PATCH') return next();
    const key = req.get('idempotency-key');
    if (key === undefined) return next();
    const scope = scopeOf(res);
    const start = await store.begin(scope, { key, method: req.method, path: req.path, params: req.body });
    if (start.kind === 'replay') {
      res.status(start.status);
      res.setHeader('Idempotent-Replayed', 'true');
      if (start.contentType) res.setHeader('Content-Type', start.contentType);
      res.end(start.body);
      return;
    }

    captureResponse(res, async (status, contentType, body) => {
      try {
        await store.finish(scope, key, { status, contentType, body });
      } catch (err) {
        log.error({ err, key }, 'could not store the idempotent response');
      }
    });
    next();
  };
}

/**
 * Stores the response before it is sent: a client that retries the moment it has an answer must
 * find the key done, not still in flight.
 */
function captureResponse(
  res: Response,
  store: (status: number, contentType: string | null, body: string) => Promise<void>,
): void {
  const send = res.send.bind(res);
  let stored = false;
  res.send = (body?: unknown) => {
    if (stored) return send(body);
    stored = true;
    const text =
      typeof body === 'string'
        ? body
        : Buffer.isBuffer(body)
          ? body.toString('utf8')
          : JSON.stringify(body ?? null);
    const contentType = res.getHeader('content-type');
    void store(res.statusCode, typeof contentType === 'string' ? contentType : null, text).finally(() =>
      send(body),
    );
    return res;
  };
}
