// Typed calls over the generated `paths`: each helper takes a path of the OpenAPI document and
// returns a function whose parameters and result are that operation's, so a wrong field, a missing
// required one or a path the API does not have fails to compile.
import type { paths } from './api-types';
import type { HttpClient, Method, RequestOptions } from './http';
import { listPromise, type ListPage, type ListPromise } from './pagination';

type Op<P extends keyof paths, M extends Method> = Exclude<paths[P][M], undefined>;
type JsonOf<C> = C extends { content: { 'application/json': infer T } } ? T : never;

/** Paths that have an operation for this method. */
export type PathWith<M extends Method> = {
  [P in keyof paths]: [Op<P, M>] extends [never] ? never : P;
}[keyof paths];

export type RequestBody<P extends keyof paths, M extends Method> =
  Op<P, M> extends { requestBody?: infer B } ? JsonOf<NonNullable<B>> : never;
export type QueryParams<P extends keyof paths, M extends Method> =
  Op<P, M> extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;
/** The success body: the operation's 200 or 201 answer. */
export type Result<P extends keyof paths, M extends Method> =
  Op<P, M> extends { responses: infer R }
    ? 200 extends keyof R
      ? JsonOf<R[200]>
      : 201 extends keyof R
        ? JsonOf<R[201]>
        : never
    : never;

/** What the caller passes: the body for POST and PATCH (and a DELETE that takes one), else the query. */
export type Params<P extends keyof paths, M extends Method> = M extends 'post' | 'patch'
  ? RequestBody<P, M>
  : M extends 'delete'
    ? [RequestBody<P, M>] extends [never]
      ? QueryParams<P, M>
      : RequestBody<P, M>
    : QueryParams<P, M>;

/** Optional params when every field is optional, required when any is. */
type Args<B> = [B] extends [never]
  ? [opts?: RequestOptions]
  : object extends B
    ? [params?: B, opts?: RequestOptions]
    : [params: B, opts?: RequestOptions];

type ItemOf<R> = R extends ListPage<infer T> ? T : never;

function fill(path: string, ids: readonly string[]): string {
  let i = 0;
  return path.replace(/\{\w+\}/g, () => encodeURIComponent(ids[i++] ?? ''));
}

/** Params go in the body for POST and PATCH (and a DELETE given some), else in the query. */
export function send(
  http: HttpClient,
  method: Method,
  path: string,
  params: object | undefined,
  opts?: RequestOptions,
) {
  const hasBody = method === 'post' || method === 'patch' || (method === 'delete' && params !== undefined);
  return http.request(method, path, hasBody ? { body: params ?? {} } : { query: params ?? {} }, opts);
}

/** An operation on a collection path, e.g. `POST /v1/customers`. */
export function op<M extends Method, P extends PathWith<M>>(http: HttpClient, method: M, path: P) {
  return (...args: Args<Params<P, M>>): Promise<Result<P, M>> =>
    send(http, method, path, args[0], args[1]) as Promise<Result<P, M>>;
}

/** An operation on one object, e.g. `GET /v1/customers/{id}`. */
export function opById<M extends Method, P extends PathWith<M>>(http: HttpClient, method: M, path: P) {
  return (id: string, ...args: Args<Params<P, M>>): Promise<Result<P, M>> =>
    send(http, method, fill(path, [id]), args[0], args[1]) as Promise<Result<P, M>>;
}

/** An operation on an object inside another, e.g. a product's variant. */
export function opByIds<M extends Method, P extends PathWith<M>>(http: HttpClient, method: M, path: P) {
  return (id: string, childId: string, ...args: Args<Params<P, M>>): Promise<Result<P, M>> =>
    send(http, method, fill(path, [id, childId]), args[0], args[1]) as Promise<Result<P, M>>;
}

/** A list endpoint, awaited for one page or iterated across all of them. */
export function list<P extends PathWith<'get'>>(http: HttpClient, path: P, ...parents: [] | [string]) {
  type Item = ItemOf<Result<P, 'get'>> & { id: string };
  return (...args: Args<Params<P, 'get'>>): ListPromise<Item> => {
    const query = (args[0] ?? {}) as Record<string, unknown>;
    return listPromise<Item>((startingAfter) =>
      http.request<ListPage<Item>>(
        'get',
        fill(path, parents),
        { query: startingAfter === undefined ? query : { ...query, starting_after: startingAfter } },
        args[1],
      ),
    );
  };
}

/** A list under a parent object, e.g. a channel's deliveries. */
export function listById<P extends PathWith<'get'>>(http: HttpClient, path: P) {
  return (id: string, ...args: Args<Params<P, 'get'>>) => list(http, path, id)(...args);
}
