import type { z } from 'zod';
import { InvalidRequestError } from './errors';

/**
 * A zod failure as the one error type, naming the parameter at fault: what the API answers and what
 * a page shows for the same bad input.
 */

/** The param name of an issue: `config.url`, `event_subscriptions.2`. */
function paramOf(path: readonly PropertyKey[]): string | undefined {
  return path.length === 0 ? undefined : path.map(String).join('.');
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input;
  for (const key of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

/** Turns the first zod issue into the envelope's error, naming the parameter at fault. */
export function toInvalidRequest(
  error: z.ZodError,
  where: 'body' | 'query' | 'path',
  input?: unknown,
): InvalidRequestError {
  const issue = error.issues[0]!;
  if (issue.code === 'unrecognized_keys') {
    const key = issue.keys[0]!;
    const param = paramOf([...issue.path, key]) ?? key;
    return new InvalidRequestError(`Received unknown parameter: ${param}`, {
      code: 'parameter_unknown',
      param,
    });
  }
  const param = paramOf(issue.path);
  if (issue.path.length > 0 && valueAt(input, issue.path) === undefined) {
    return new InvalidRequestError(`Missing required parameter: ${param ?? where}`, {
      code: 'parameter_missing',
      ...(param !== undefined && { param }),
    });
  }
  const subject = param ? `Invalid ${param}` : `Invalid request ${where}`;
  return new InvalidRequestError(`${subject}: ${issue.message}`, {
    code: 'parameter_invalid',
    ...(param !== undefined && { param }),
  });
}
