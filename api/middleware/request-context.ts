import type { RequestHandler } from 'express';
import type { Logger } from '../../stack/logger';
import type { Metrics } from '../metrics';
import { context } from '../../stack/request-context';
import { newId, ID_PREFIX } from '../../domain/ids';
import { withRequestId } from '../../stack/request-id';

/**
 * Gives every request an id (echoed in `Request-Id`), and on completion logs one structured line
 * and records the request in the metrics under its route template, never its raw path, so ids in
 * URLs do not explode the label set. The rest of the request runs as work for its id, so its log lines
 * and the workflows it starts or signals carry it (decision 0178).
 */
export function requestContext(log: Logger, metrics: Metrics): RequestHandler {
  return (req, res, next) => {
    const requestId = newId(ID_PREFIX.request);
    context(res).requestId = requestId;
    res.setHeader('Request-Id', requestId);
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const route =
        context(res).route ??
        (req.route ? `${req.baseUrl}${String((req.route as { path: string }).path)}` : 'unmatched');
      const labels = { method: req.method, route, status: String(res.statusCode) };
      metrics.httpRequests.inc(labels);
      metrics.httpDuration.observe(labels, seconds);
      const scope = context(res).scope;
      log.info(
        {
          requestId,
          method: req.method,
          route,
          path: req.path,
          status: res.statusCode,
          ms: Math.round(seconds * 1000),
          ...(scope && { merchantId: scope.merchantId, livemode: scope.livemode }),
        },
        'request',
      );
    });
    withRequestId(requestId, next);
  };
}
