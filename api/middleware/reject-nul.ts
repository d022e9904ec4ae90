import type { RequestHandler } from 'express';
import { InvalidRequestError, NotFoundError } from '../../domain/errors';

/** The dot path of the first string holding a NUL character, or null. */
function nulPath(value: unknown, path: string[] = []): string[] | null {
  if (typeof value === 'string') return value.includes('\u0000') ? path : null;
  if (value && typeof value === 'object') {
    for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
      if (key.includes('\u0000')) return [...path, key];
      const found = nulPath(child, [...path, key]);
      if (found) return found;
    }
  }
  return null;
}

/**
 * PostgreSQL text cannot hold NUL (U+0000): a value carrying one would fail deep in a query as a 500.
 * No field of this API has a use for it, so it is refused up front, in the path, query or body.
 */
export const rejectNul: RequestHandler = (req, _res, next) => {
  let path: string;
  try {
    path = decodeURIComponent(req.path);
  } catch {
    return next(
      new InvalidRequestError('The request path is not valid percent-encoding', {
        status: 404,
        code: 'route_not_found',
      }),
    );
  }
  if (path.includes('\u0000')) {
    // Path segments are ids, and no id holds a NUL: whatever was asked for does not exist.
    return next(new NotFoundError('No such object: an id never contains NUL characters', 'id'));
  }
  for (const [where, value] of [
    ['query', req.query],
    ['body', req.body],
  ] as const) {
    const found = nulPath(value);
    if (found) {
      const param = found.join('.') || where;
      return next(
        new InvalidRequestError(`${param} must not contain NUL characters`, {
          code: 'parameter_invalid',
          param,
        }),
      );
    }
  }
  next();
};
