import { createHash } from 'node:crypto';
import type { RequestHandler, Response } from 'express';
import type { IdempotencyRepository } from '../../db/idempotency';
import type { Logger } from '../../stack/logger';
import { IdempotencyError, InvalidRequestError } from '../../domain/errors';
import { scopeOf } from '../../stack/request-context';

/** JSON with object keys sorted, so the same parameters hash alike in any key order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) =>
      a < b ? -1 : a > b ? 1 : 0,
    );
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** What makes two requests "the same" for a key: method, path and parameters in any key order. */
export function requestHash(method: string, path: string, body: unknown): string {
  return createHash('sha256')
    .update(`${method} ${path}\n${canonical(body)}`)
    .digest('hex');
}

/**
 * `Idempotency-Key` on POST and PATCH (architecture, "API conventions"). The first response is
 * stored for 24 hours and replayed byte for byte; the same key with other parameters is refused;
 * a key whose first request is still running answers 409. A 5xx is not stored, so it may be retried.
 */
export function idempotency(repo: IdempotencyRepository, log: Logger): RequestHandler {
  return async (req, res, next) => {
    if (req.method !== 'POST' && req.method !== 'PATCH') return next();
    const key = req.get('idempotency-key');
    if (key === undefined) return next();
    if (key.length < 1 || key.length > 255) {
      throw new InvalidRequestError('Idempotency-Key must be 1 to 255 characters', {
        code: 'parameter_invalid',
        param: 'Idempotency-Key',
      });
    }
    const scope = scopeOf(res);
    const path = req.path;
    const hash = requestHash(req.method, path, req.body);
    const claim = await repo.claim(scope, { key, method: req.method, path, requestHash: hash });

    if (!claim.claimed) {
      const row = claim.existing;
      if (row.request_hash !== hash) {
        throw new IdempotencyError(
          400,
          `Keys for idempotent requests can only be used with the same parameters they were first used with. Try a new key for a different request (this key was used for ${row.method} ${row.path}).`,
          'idempotency_key_reused',
        );
      }
      if (row.state === 'in_flight') {
        throw new IdempotencyError(
          409,
          'A request with this Idempotency-Key is still being processed. Retry after it finishes.',
          'idempotency_key_in_use',
        );
      }
      res.status(row.response_status ?? 200);
      res.setHeader('Idempotent-Replayed', 'true');
      if (row.response_content_type) res.setHeader('Content-Type', row.response_content_type);
      res.end(row.response_body ?? '');
      return;
    }

    captureResponse(res, async (status, contentType, body) => {
      try {
        if (status >= 500) await repo.release(scope, key);
        else await repo.complete(scope, key, { status, contentType, body });
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
