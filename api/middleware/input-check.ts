import type { RequestHandler } from 'express';
import { InvalidRequestError, NotFoundError } from '../../domain/errors';

/**
 * The deepest a body or query may nest: objects and arrays, the body itself counting as one
 * (decision 0108). No field of this API goes near it; a 10 KB body can otherwise nest 5,000 deep.
 */
export const MAX_INPUT_DEPTH = 32;

/** A lone UTF-16 surrogate: with the `u` flag a well-formed pair reads as one code point. */
const LONE_SURROGATE = /\p{Cs}/u;

type Fault = { kind: 'depth' } | { kind: 'nul' | 'unicode'; path: string[]; inKey: boolean };

function textFault(text: string): 'nul' | 'unicode' | null {
  if (text.includes('\u0000')) return 'nul';
  if (LONE_SURROGATE.test(text)) return 'unicode';
  return null;
}

/**
 * Walks a parsed body or query without recursion, depth first: the first container nested deeper
 * than MAX_INPUT_DEPTH, or the first string (value or key) that PostgreSQL cannot store as text or
 * JSON: one holding NUL, or a lone surrogate (not valid Unicode, refused by jsonb and turned into
 * U+FFFD by the text encoder).
 */
function findFault(root: unknown): Fault | null {
  const stack: { value: unknown; path: string[] }[] = [{ value: root, path: [] }];
  while (stack.length > 0) {
    const { value, path } = stack.pop()!;
    if (typeof value === 'string') {
      const kind = textFault(value);
      if (kind) return { kind, path, inKey: false };
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (path.length + 1 > MAX_INPUT_DEPTH) return { kind: 'depth' };
    const entries = Object.entries(value as Record<string, unknown>);
    for (let i = entries.length - 1; i >= 0; i--) {
      const [key, child] = entries[i]!;
      const kind = textFault(key);
      if (kind) return { kind, path, inKey: true };
      stack.push({ value: child, path: [...path, key] });
    }
  }
  return null;
}

/**
 * Refuses, before any route sees them, inputs that would otherwise fail deep inside as a 500:
 * nesting beyond MAX_INPUT_DEPTH (checked first, and without recursion, so no later check recurses
 * through it), and text PostgreSQL cannot store (NUL, lone surrogates), in the path, query or body.
 */
export const checkInput: RequestHandler = (req, _res, next) => {
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
    const fault = findFault(value);
    if (!fault) continue;
    if (fault.kind === 'depth') {
      return next(
        new InvalidRequestError(
          `The request ${where} is nested too deeply: at most ${MAX_INPUT_DEPTH} levels of objects and arrays`,
          { code: 'nesting_too_deep' },
        ),
      );
    }
    const param = fault.path.join('.') || where;
    const what = fault.inKey ? `${param} has a key that` : param;
    const message =
      fault.kind === 'nul'
        ? `${what} must not contain NUL characters`
        : `${what} must be valid Unicode text: it holds an unpaired UTF-16 surrogate`;
    return next(new InvalidRequestError(message, { code: 'parameter_invalid', param }));
  }
  next();
};
