import {
  toAcquirerError,
  type AcquirerRefund,
  type Authorization,
  type AuthorizeRequest,
  type CaptureRequest,
  type CardAcquirer,
  type CardToken,
  type RefundRequest,
  type TokenizeRequest,
} from './card-acquirer';

export interface HttpCardAcquirerOptions {
  /** e.g. `http://127.0.0.1:3000/_sim/acquirer`. */
  baseUrl: string;
  /** Retries after the first attempt for retryable failures, with the same idempotency key. */
  maxRetries?: number;
  timeoutMs?: number;
  /** Delay before retry n (1-based); exponential from 50 ms by default. */
  backoffMs?: (n: number) => number;
}

/**
 * A `CardAcquirer` over HTTP+JSON. One private request function does what stripe-node's
 * RequestSender does: an Idempotency-Key on every POST, a timeout, and retries only for failures
 * that `toAcquirerError` classifies as retryable.
 */
export function createHttpCardAcquirer(opts: HttpCardAcquirerOptions): CardAcquirer {
  const maxRetries = opts.maxRetries ?? 2;
  const timeoutMs = opts.timeoutMs ?? 15_000;
  const backoff = opts.backoffMs ?? ((n: number) => 50 * 2 ** (n - 1));

  async function request<T>(method: 'GET' | 'POST', path: string, body?: unknown, key?: string): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      let raw: { status: number | null; body?: unknown; networkError?: string };
      try {
        const res = await fetch(opts.baseUrl + path, {
          method,
          headers: {
            ...(body !== undefined && { 'content-type': 'application/json' }),
            ...(key !== undefined && { 'idempotency-key': key }),
          },
          ...(body !== undefined && { body: JSON.stringify(body) }),
          redirect: 'manual',
          signal: AbortSignal.timeout(timeoutMs),
        });
        const text = await res.text();
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch {
          parsed = undefined;
        }
        if (res.ok) return parsed as T;
        raw = { status: res.status, body: parsed };
      } catch (err) {
        raw = { status: null, networkError: (err as Error).message };
      }
      const error = toAcquirerError(raw);
      if (!error.retryable || attempt >= maxRetries) throw error;
      await new Promise((r) => setTimeout(r, backoff(attempt + 1)));
    }
  }

  return {
    tokenize: (req: TokenizeRequest) => request<CardToken>('POST', '/v1/tokens', req),
    authorize: ({ idempotency_key, ...req }: AuthorizeRequest) =>
      request<Authorization>('POST', '/v1/authorizations', req, idempotency_key),
    retrieve: (id: string) => request<Authorization>('GET', `/v1/authorizations/${encodeURIComponent(id)}`),
    capture: ({ idempotency_key, authorization, amount }: CaptureRequest) =>
      request<Authorization>(
        'POST',
        `/v1/authorizations/${encodeURIComponent(authorization)}/capture`,
        { amount },
        idempotency_key,
      ),
    void: (authorization: string, key: string) =>
      request<Authorization>('POST', `/v1/authorizations/${encodeURIComponent(authorization)}/void`, {}, key),
    refund: ({ idempotency_key, ...req }: RefundRequest) =>
      request<AcquirerRefund>('POST', '/v1/refunds', req, idempotency_key),
  };
}
