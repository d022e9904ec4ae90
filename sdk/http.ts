import { randomUUID } from 'node:crypto';
import { errorFromResponse, SkilConnectionError, type SkilError } from './errors';

export interface SkilOptions {
  /** The API's address; default `http://localhost:3000`, what `npm start` serves. */
  baseUrl?: string;
  /** How the key travels: `Authorization: Bearer` (default) or the `x-api-key` header (spec §5.3). */
  authHeader?: 'bearer' | 'x-api-key';
  /** Retries after the first attempt, for failures that are safe to retry (default 2). */
  maxNetworkRetries?: number;
  /** Per attempt, in ms (default 30,000). */
  timeoutMs?: number;
  /** Backoff bounds in ms (defaults 500 and 8,000); tests shorten them. */
  initialRetryDelayMs?: number;
  maxRetryDelayMs?: number;
  /** Replaces the global fetch (a proxy agent, a recorder). */
  fetch?: typeof fetch;
}

export interface RequestOptions {
  /** Makes a POST or PATCH safe to repeat; the client makes one per call when not given. */
  idempotencyKey?: string;
  timeoutMs?: number;
  maxNetworkRetries?: number;
}

export type Method = 'get' | 'post' | 'patch' | 'delete';

/** Retry-After beyond this is not waited for: the error goes back to the caller. */
const MAX_RETRY_AFTER_MS = 60_000;

/**
 * One request with the client's retry rules. A POST or PATCH carries an `Idempotency-Key` that stays
 * the same across the retries, so a retry after a lost answer returns the first result instead of
 * doing the work twice. Retried: no answer at all, 409 `idempotency_key_in_use` (the first attempt is
 * still running), 429 (after `Retry-After`) and 5xx. Never another 4xx: those are the caller's to fix.
 */
export class HttpClient {
  private readonly baseUrl: string;
  private readonly fetch: typeof fetch;

  /** `key` null: the few operations that need none (device authorization, spec §4.2). */
  constructor(
    private readonly key: string | null,
    private readonly options: SkilOptions = {},
  ) {
    this.baseUrl = (options.baseUrl ?? 'http://localhost:3000').replace(/\/+$/, '');
    this.fetch = options.fetch ?? globalThis.fetch;
  }

  async request<T>(
    method: Method,
    path: string,
    params: { query?: object; body?: object },
    opts: RequestOptions = {},
  ): Promise<T> {
    const url = new URL(this.baseUrl + path);
    for (const [name, value] of Object.entries(params.query ?? {})) {
      if (value !== undefined) url.searchParams.set(name, String(value));
    }
    const headers: Record<string, string> = {
      accept: 'application/json',
      'user-agent': 'skil-sdk-node/1.0.0',
    };
    if (this.key !== null && this.options.authHeader === 'x-api-key') headers['x-api-key'] = this.key;
    else if (this.key !== null) headers.authorization = `Bearer ${this.key}`;
    let body: string | undefined;
    if (method === 'post' || method === 'patch' || params.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(params.body ?? {});
    }
    if (method === 'post' || method === 'patch') {
      headers['idempotency-key'] = opts.idempotencyKey ?? `sdk_${randomUUID()}`;
    }
    const retries = opts.maxNetworkRetries ?? this.options.maxNetworkRetries ?? 2;
    const timeoutMs = opts.timeoutMs ?? this.options.timeoutMs ?? 30_000;

    for (let attempt = 0; ; attempt++) {
      let res: Response;
      try {
        res = await this.fetch(url, {
          method: method.toUpperCase(),
          headers,
          ...(body !== undefined && { body }),
          redirect: 'manual',
          signal: AbortSignal.timeout(timeoutMs),
        });
      } catch (err) {
        if (attempt < retries) {
          await sleep(this.backoff(attempt));
          continue;
        }
        const reason =
          err instanceof Error && err.name === 'TimeoutError'
            ? `timed out after ${timeoutMs} ms`
            : describe(err);
        throw new SkilConnectionError({
          type: 'api_connection_error',
          message: `Could not reach the Skil API at ${this.baseUrl}: ${reason}`,
        });
      }
      const payload: unknown = await readJson(res);
      if (res.ok) return payload as T;
      const error = errorFromResponse(res.status, res.headers, payload);
      const wait = this.retryDelay(res, error, attempt);
      if (attempt < retries && wait !== null) {
        await sleep(wait);
        continue;
      }
      throw error;
    }
  }

  /** ms to wait before retrying this answer, or null when it must not be retried. */
  private retryDelay(res: Response, error: SkilError, attempt: number): number | null {
    if (res.status === 409) return error.code === 'idempotency_key_in_use' ? this.backoff(attempt) : null;
    if (res.status === 429) {
      const after = retryAfterMs(res.headers.get('retry-after'));
      if (after === null) return this.backoff(attempt);
      return after <= MAX_RETRY_AFTER_MS ? after : null;
    }
    return res.status >= 500 ? this.backoff(attempt) : null;
  }

  /** Exponential backoff with "equal jitter": half fixed, half random, so retries spread out. */
  private backoff(attempt: number): number {
    const initial = this.options.initialRetryDelayMs ?? 500;
    const max = this.options.maxRetryDelayMs ?? 8_000;
    const delay = Math.min(max, initial * 2 ** attempt);
    return delay / 2 + Math.random() * (delay / 2);
  }
}

/** `Retry-After` as seconds or an HTTP date (RFC 9110 §10.2.3). */
function retryAfterMs(value: string | null): number | null {
  if (value === null) return null;
  if (/^\d+$/.test(value.trim())) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - Date.now());
}

async function readJson(res: Response): Promise<unknown> {
  const text = await res.text();
  if (text.length === 0) return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

function describe(err: unknown): string {
  if (err instanceof Error) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    return cause?.code ?? cause?.message ?? err.message;
  }
  return String(err);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
