import { z } from 'zod';
import { InvalidRequestError } from '../domain/errors';

/**
 * An integer that may also arrive as an integer-formatted string (spec §2.1), as every value does
 * from a form-encoded or multipart body.
 */
export function zInt() {
  return z
    .union([
      z.number().int(),
      z
        .string()
        .regex(/^-?\d{1,15}$/, 'must be an integer')
        .transform(Number),
    ])
    .pipe(z.number().int());
}

/** A boolean, or the strings "true" / "false" that forms send. */
export function zBool() {
  return z.union([z.boolean(), z.enum(['true', 'false']).transform((v) => v === 'true')]);
}

/** Metadata in Stripe's shape: up to 50 keys of at most 40 characters, string values up to 500. */
export const zMetadata = z
  .record(z.string().min(1).max(40), z.string().max(500))
  .refine((m) => Object.keys(m).length <= 50, 'at most 50 keys');

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

/** Parses input with a schema, or throws a 400 that names the offending parameter. */
export function parseInput<S extends z.ZodType>(
  schema: S,
  input: unknown,
  where: 'body' | 'query' | 'path',
): z.output<S> {
  const result = schema.safeParse(input);
  if (!result.success) throw toInvalidRequest(result.error, where, input);
  return result.data;
}
