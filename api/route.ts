import { isDeepStrictEqual } from 'node:util';
import type { Request, RequestHandler, Response, Router } from 'express';
import type { z } from 'zod';
import type { Scope } from '../domain/scope';
import type { ApiTag, ErrorStatus, HttpMethod, OperationDoc } from './openapi';
import { parseInput } from './validation';
import { context, scopeOf } from '../stack/request-context';

export interface HandlerInput<B, Q> {
  body: B;
  query: Q;
  params: Record<string, string>;
  scope: Scope;
  req: Request;
  res: Response;
}

export interface RouteDef<B extends z.ZodType, Q extends z.ZodType> {
  method: HttpMethod;
  path: string;
  summary: string;
  tag: ApiTag;
  body?: B;
  query?: Q;
  response: z.ZodType;
  status?: number;
  /** Error statuses beyond those the route's shape implies (openapi.ts, errorStatuses). */
  errors?: readonly ErrorStatus[];
  /** A success body that is not JSON (a PDF, an XML document): the handler returns it as is. */
  contentType?: string;
  /** Another spelling of a documented path (a trailing slash): served, not documented again. */
  alias?: boolean;
  handler: (input: HandlerInput<z.output<B>, z.output<Q>>) => Promise<unknown>;
}

/**
 * Declares an authenticated JSON route once: Express gets a thin handler that validates body and
 * query with the schemas, and the OpenAPI document gets the same schemas.
 */
export function createRoutes(router: Router, docs: OperationDoc[]) {
  return function route<B extends z.ZodType, Q extends z.ZodType>(def: RouteDef<B, Q>): void {
    const status = def.status ?? 200;
    if (!def.alias)
      docs.push({
        method: def.method,
        path: def.path,
        summary: def.summary,
        tag: def.tag,
        auth: true,
        response: def.response,
        status,
        ...(def.body && { body: def.body }),
        ...(def.query && { query: def.query }),
        ...(def.errors && { errors: def.errors }),
        ...(def.contentType && { contentType: def.contentType }),
      });
    router[def.method](def.path, async (req, res) => {
      context(res).route = def.path;
      context(res).declared = def;
      // No body is an empty one (a DELETE sent bare cancels as with `{}`).
      const body = (def.body ? parseInput(def.body, req.body ?? {}, 'body') : undefined) as z.output<B>;
      const query = (def.query ? parseInput(def.query, req.query, 'query') : undefined) as z.output<Q>;
      const result = await def.handler({
        body,
        query,
        params: req.params as Record<string, string>,
        scope: scopeOf(res),
        req,
        res,
      });
      if (def.contentType) res.status(status).type(def.contentType).send(result);
      else res.status(status).json(result);
    });
  };
}

/** Thrown when a handler's result does not match its route's declared response schema. */
export class ResponseSchemaError extends Error {
  constructor(
    readonly route: string,
    readonly issues: unknown,
  ) {
    super(`${route} does not match its declared schema: ${JSON.stringify(issues)}`);
    this.name = 'ResponseSchemaError';
  }
}

/**
 * Validates the JSON a client would receive. Zod drops undeclared keys when it parses, so a parse
 * that succeeds but changes the value means the response carries a field the schema does not declare.
 */
export function checkResponse(
  def: { method: string; path: string; response: z.ZodType },
  result: unknown,
): void {
  const route = `${def.method.toUpperCase()} ${def.path}`;
  const sent: unknown = result === undefined ? undefined : JSON.parse(JSON.stringify(result));
  const parsed = def.response.safeParse(sent);
  if (!parsed.success) throw new ResponseSchemaError(route, parsed.error.issues);
  if (!isDeepStrictEqual(parsed.data, sent)) {
    throw new ResponseSchemaError(route, [{ message: 'undeclared fields', sent, declared: parsed.data }]);
  }
}

/**
 * Checks every successful JSON response of a declared route against its schema before it is sent,
 * and fails the request (500, logged with the differences) when it does not match. The test stack
 * turns this on (`checkResponses`), so the OpenAPI document cannot drift from what is sent.
 */
export function checkResponses(): RequestHandler {
  return (_req, res, next) => {
    const json = res.json.bind(res);
    res.json = (body: unknown) => {
      const declared = context(res).declared;
      if (declared && res.statusCode < 400) checkResponse(declared, body);
      return json(body);
    };
    next();
  };
}

export type DefineRoute = ReturnType<typeof createRoutes>;

/**
 * A JSON handler for routes outside a merchant's scope (the operator API): names the route for
 * logs and metrics, validates the body or the query with `schema`, and answers the result.
 */
export function jsonHandler<S extends z.ZodType>(
  path: string,
  schema: S,
  where: 'body' | 'query',
  fn: (input: z.output<S>, req: Request, res: Response) => Promise<unknown>,
) {
  return async (req: Request, res: Response): Promise<void> => {
    context(res).route = path;
    const input = parseInput(schema, where === 'body' ? req.body : req.query, where);
    res.json(await fn(input, req, res));
  };
}
