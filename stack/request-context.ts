import type { Response } from 'express';
import type { z } from 'zod';
import type { Scope } from '../domain/scope';

/**
 * What the middleware learns about a request (its id, route and scope), kept on res.locals under
 * typed accessors. A logging concern: the API and the pages both label their logs and metrics with it.
 */
interface RequestContext {
  requestId: string;
  scope?: Scope;
  /** The API key that authenticated the request (limits kept per key, decision 0122). */
  apiKeyId?: string;
  /** The paired till whose device credential authenticated the request (decision 0126). */
  posDevice?: { id: string; registerId: string };
  /** The matched route template, for metrics and logs. */
  route?: string;
  /** The declared route that answers, whose response schema `checkResponses` holds the body to. */
  declared?: { method: string; path: string; response: z.ZodType };
}

export function context(res: Response): RequestContext {
  return res.locals as RequestContext;
}

/** The merchant and mode of the authenticated key; only valid behind the auth middleware. */
export function scopeOf(res: Response): Scope {
  const scope = context(res).scope;
  if (!scope) throw new Error('scopeOf called on an unauthenticated route');
  return scope;
}
