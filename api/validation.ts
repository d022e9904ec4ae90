import { z } from 'zod';
import { toInvalidRequest } from '../domain/invalid-request';

export { toInvalidRequest };

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
