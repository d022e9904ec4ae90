import type { Scope } from '../domain/scope';

export type { PageOptions } from '../db/tenant';
import { InvalidRequestError, NotFoundError } from '../domain/errors';

/** Ids are at most 64 characters of letters, digits and `_`; anything else names nothing. */
export const ID_SHAPE = /^[A-Za-z0-9_]{1,64}$/;

/**
 * Finds an object of the caller's scope, or answers 404; when the id exists in the other mode the
 * message says so, as Stripe's does.
 */
export async function findOr404<T>(
  noun: string,
  scope: Scope,
  id: string,
  find: () => Promise<T | undefined>,
  existsInOtherMode: () => Promise<boolean>,
  param = 'id',
): Promise<T> {
  if (!ID_SHAPE.test(id))
    throw new NotFoundError(`No such ${noun}: '${id.slice(0, 64).replace(/\p{Cc}/gu, '?')}'`, param);
  const row = await find();
  if (row !== undefined) return row;
  if (await existsInOtherMode()) {
    const [used, other] = scope.livemode ? ['live', 'test'] : ['test', 'live'];
    throw new NotFoundError(
      `No such ${noun}: '${id}'; a similar object exists in ${other} mode, but a ${used} mode key was used to make this request.`,
      param,
    );
  }
  throw new NotFoundError(`No such ${noun}: '${id}'`, param);
}

/**
 * A 400 for an id in the request body or query that names nothing in the caller's scope (Stripe's
 * way; decision 0108). An id in the path that names nothing is findOr404's 404 instead.
 */
export function missingReference(noun: string, id: string, param: string): InvalidRequestError {
  return new InvalidRequestError(`No such ${noun}: '${id.slice(0, 64).replace(/\p{Cc}/gu, '?')}'`, {
    code: 'resource_missing',
    param,
  });
}

/** The object a body or query id names, or missingReference's 400 naming `param`. */
export async function findReference<T>(
  noun: string,
  id: string,
  param: string,
  find: () => Promise<T | undefined>,
): Promise<T> {
  const row = ID_SHAPE.test(id) ? await find() : undefined;
  if (row === undefined) throw missingReference(noun, id, param);
  return row;
}
