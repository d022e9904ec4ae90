import { createHash, randomUUID } from 'node:crypto';
import type http from 'node:http';
import type {
  AlterClaimBatchDetails,
  BatchStatus,
  ClaimDetails,
  ClaimStatusSingleResponse,
  ClaimStatusSuccess,
  ClaimTransaction,
  ClaimTransactionsQuery,
  ClaimsApi,
  CreateClaimDetails,
  MergeClaimDetails,
  MutationOptions,
  PageQuery,
  Paged,
} from './claims-api';
import { createAgent, parseRetryAfter, sendJson, type AgentOptions, type RawResponse } from './iobws-http';
import { BankAuthenticationError, BankError, ClaimRejectedError, toBankError } from './claims-errors';

/**
 * IOBWS 3.1 claims client over HTTPS (ÍST TS 315/316): OAuth2 client credentials, optionally over
 * mutual TLS with the device certificate (búnaðarskilríki), an X-Request-ID per logical request
 * (kept across its retries), an X-Idempotency-Key derived from business identity on every mutating
 * call, and one request function that classifies and retries transient failures.
 */

export interface IobwsClaimsClientConfig {
  /** e.g. `https://claims.bank.is` — paths `/v1/…` are appended. */
  baseUrl: string;
  /** OAuth2 token endpoint; default `${baseUrl}/oauth2/token`. */
  tokenUrl?: string;
  clientId: string;
  /** Omitted with mTLS client authentication (RFC 8705 `tls_client_auth`). */
  clientSecret?: string;
  /** Default `claims.read claims.write` (TS 316 scopes). */
  scope?: string;
  /** Mutual TLS: PEM paths of the client certificate and key, and the CA that signed the bank's certificate. */
  tls?: AgentOptions['tls'];
  /** Attempts per request, first included (default 4). */
  maxAttempts?: number;
  /** First retry delay (default 200 ms), doubled per attempt with jitter, capped at maxDelayMs (5 s). */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** Per-attempt timeout (default 30 s). */
  timeoutMs?: number;
  /** Max sockets per host (default 16). */
  maxSockets?: number;
}

/** A fixed namespace for idempotency keys (UUID v5 of the business identity). */
const IDEMPOTENCY_NAMESPACE = 'f6c3a1d2-5b7e-4c1a-9e8f-3d2b1a0c9e7d';

/** UUID v5 (RFC 9562 §5.5) of `name`: the same business identity always gives the same key. */
export function idempotencyKeyFor(name: string): string {
  const ns = Buffer.from(IDEMPOTENCY_NAMESPACE.replaceAll('-', ''), 'hex');
  const hash = createHash('sha1').update(ns).update(name, 'utf8').digest();
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const h = hash.subarray(0, 16).toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

interface RequestSpec {
  method: 'GET' | 'POST' | 'PATCH';
  path: string;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  idempotencyIdentity?: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The real-bank (and simulated-bank) implementation of ClaimsApi. */
export class IobwsClaimsClient implements ClaimsApi {
  private readonly base: URL;
  private readonly tokenUrl: URL;
  private readonly agent: http.Agent;
  private token: { value: string; expiresAt: number } | null = null;
  private tokenInFlight: Promise<string> | null = null;

  constructor(private readonly config: IobwsClaimsClientConfig) {
    this.base = new URL(config.baseUrl.replace(/\/+$/, '') + '/');
    this.tokenUrl = new URL(config.tokenUrl ?? new URL('oauth2/token', this.base).toString());
    this.agent = createAgent(this.base, config);
  }

  /** Closes pooled connections. */
  close(): void {
    this.agent.destroy();
  }

  async createClaim(claim: CreateClaimDetails, opts: MutationOptions): Promise<ClaimStatusSuccess> {
    const res = await this.request({ method: 'POST', path: 'v1/claims', body: claim, ...idem(opts) });
    return single(res);
  }

  createClaimsBatch(claims: CreateClaimDetails[], opts: MutationOptions): Promise<BatchStatus> {
    return this.postBatch({ actionType: 'create', createList: claims }, opts);
  }

  alterClaimsBatch(changes: AlterClaimBatchDetails[], opts: MutationOptions): Promise<BatchStatus> {
    return this.postBatch({ actionType: 'alter', alterList: changes }, opts);
  }

  async getBatch(batchId: string): Promise<BatchStatus> {
    const res = await this.request({ method: 'GET', path: `v1/batches/${encodeURIComponent(batchId)}` });
    return res.body as BatchStatus;
  }

  async alterClaim(
    claimId: string,
    patch: MergeClaimDetails,
    opts: MutationOptions,
  ): Promise<ClaimStatusSuccess> {
    const res = await this.request({
      method: 'PATCH',
      path: `v1/claims/${encodeURIComponent(claimId)}`,
      body: patch,
      ...idem(opts),
    });
    return single(res);
  }

  cancelClaim(claimId: string, opts: MutationOptions): Promise<ClaimStatusSuccess> {
    return this.alterClaim(claimId, { claimStatus: 'Cancelled' }, opts);
  }

  async getClaim(claimId: string): Promise<ClaimDetails> {
    const res = await this.request({ method: 'GET', path: `v1/claims/${encodeURIComponent(claimId)}` });
    return res.body as ClaimDetails;
  }

  async getClaimTransactions(claimId: string, query: PageQuery = {}): Promise<Paged<ClaimTransaction>> {
    const res = await this.request({
      method: 'GET',
      path: `v1/claims/${encodeURIComponent(claimId)}/transactions`,
      query: { ...query },
    });
    return paged(res);
  }

  async listClaimTransactions(query: ClaimTransactionsQuery): Promise<Paged<ClaimTransaction>> {
    const res = await this.request({ method: 'GET', path: 'v1/claims/transactions', query: { ...query } });
    return paged(res);
  }

  private async postBatch(body: unknown, opts: MutationOptions): Promise<BatchStatus> {
    const res = await this.request({ method: 'POST', path: 'v1/batches', body, ...idem(opts) });
    return res.body as BatchStatus;
  }

  /** The one request function: token, headers, retry classification, error mapping. */
  private async request(spec: RequestSpec): Promise<RawResponse> {
    const url = new URL(spec.path, this.base);
    for (const [k, v] of Object.entries(spec.query ?? {}))
      if (v !== undefined) url.searchParams.set(k, String(v));
    const requestId = randomUUID();
    const payload = spec.body === undefined ? undefined : JSON.stringify(spec.body);
    const maxAttempts = this.config.maxAttempts ?? 4;
    let refreshedToken = false;
    for (let attempt = 1; ; attempt++) {
      let error: BankError;
      let retryAfterMs: number | null = null;
      try {
        const headers: http.OutgoingHttpHeaders = {
          accept: 'application/json',
          authorization: `Bearer ${await this.accessToken()}`,
          'x-request-id': requestId,
        };
        if (spec.idempotencyIdentity !== undefined)
          headers['x-idempotency-key'] = idempotencyKeyFor(spec.idempotencyIdentity);
        if (payload !== undefined) headers['content-type'] = 'application/json';
        const res = await sendJson(
          this.agent,
          this.config.timeoutMs ?? 30_000,
          spec.method,
          url,
          headers,
          payload,
        );
        if (res.status >= 200 && res.status < 300) return res;
        error = toBankError({ status: res.status, body: res.body, requestId });
        retryAfterMs = parseRetryAfter(res.headers['retry-after']);
        // An expired or revoked token: fetch a new one once, at no cost to the attempt budget.
        if (error instanceof BankAuthenticationError && !refreshedToken) {
          refreshedToken = true;
          this.token = null;
          attempt--;
          continue;
        }
      } catch (err) {
        if (err instanceof BankError) error = err;
        else error = toBankError({ networkError: err, requestId });
      }
      if (!error.retryable || attempt >= maxAttempts) throw error;
      await sleep(retryAfterMs ?? this.backoff(attempt));
    }
  }

  private backoff(attempt: number): number {
    const base = this.config.baseDelayMs ?? 200;
    const cap = this.config.maxDelayMs ?? 5_000;
    const exp = Math.min(cap, base * 2 ** (attempt - 1));
    return exp / 2 + Math.random() * (exp / 2);
  }

  private async accessToken(): Promise<string> {
    if (this.token && this.token.expiresAt > Date.now()) return this.token.value;
    this.tokenInFlight ??= this.fetchToken().finally(() => {
      this.tokenInFlight = null;
    });
    return this.tokenInFlight;
  }

  /** OAuth2 client credentials (RFC 6749 §4.4); client_secret_basic, or tls_client_auth without a secret. */
  private async fetchToken(): Promise<string> {
    const form = new URLSearchParams({
      grant_type: 'client_credentials',
      scope: this.config.scope ?? 'claims.read claims.write',
    });
    const headers: http.OutgoingHttpHeaders = {
      accept: 'application/json',
      'content-type': 'application/x-www-form-urlencoded',
    };
    if (this.config.clientSecret !== undefined) {
      const basic = `${encodeURIComponent(this.config.clientId)}:${encodeURIComponent(this.config.clientSecret)}`;
      headers.authorization = `Basic ${Buffer.from(basic).toString('base64')}`;
    } else {
      form.set('client_id', this.config.clientId);
    }
    let res: RawResponse;
    try {
      res = await sendJson(
        this.agent,
        this.config.timeoutMs ?? 30_000,
        'POST',
        this.tokenUrl,
        headers,
        form.toString(),
      );
    } catch (err) {
      throw toBankError({ networkError: err });
    }
    const body = res.body as { access_token?: unknown; expires_in?: unknown } | null;
    if (res.status !== 200 || typeof body?.access_token !== 'string') {
      const err = toBankError({ status: res.status, body: res.body });
      // Refused credentials are final; a token endpoint that is down is not.
      throw err.retryable
        ? err
        : new BankAuthenticationError(`token refused: ${err.message}`, false, res.status, err.code);
    }
    const expiresIn = typeof body.expires_in === 'number' ? body.expires_in : 300;
    // Renew a minute early (or at half-life for short tokens) so a request never carries a dying token.
    const margin = Math.min(60, expiresIn / 2);
    this.token = { value: body.access_token, expiresAt: Date.now() + (expiresIn - margin) * 1000 };
    return body.access_token;
  }
}

function idem(opts: MutationOptions): { idempotencyIdentity: string } {
  if (!opts.idempotencyIdentity) throw new TypeError('a mutating call needs an idempotency identity');
  return { idempotencyIdentity: opts.idempotencyIdentity };
}

/** A 2xx single-claim answer may still carry `error` (claimStatusSingleResponse): surface it typed. */
function single(res: RawResponse): ClaimStatusSuccess {
  const body = res.body as ClaimStatusSingleResponse;
  if (body?.error) {
    const err = toBankError({ status: res.status, body: body.error });
    if (err instanceof ClaimRejectedError) throw err;
    throw new ClaimRejectedError(body.error.resultMessage ?? 'claim rejected', 'CLAIM_OTHERS', res.status);
  }
  return body?.success ?? {};
}

function header(res: RawResponse, name: string, fallback: number): number {
  const v = Number(res.headers[name]);
  return Number.isFinite(v) ? v : fallback;
}

function paged<T>(res: RawResponse): Paged<T> {
  const items = Array.isArray(res.body) ? (res.body as T[]) : [];
  return {
    items,
    page: header(res, 'x-paging-currentpage', 1),
    totalPages: header(res, 'x-paging-totalpages', 1),
    totalItems: header(res, 'x-paging-totalitems', items.length),
    perPage: header(res, 'x-paging-perpage', items.length),
  };
}

/** Polls a batch until nothing is pending (for workflows: one poll per activity call instead). */
export async function waitForBatch(
  api: Pick<ClaimsApi, 'getBatch'>,
  batchId: string,
  opts: { intervalMs?: number; timeoutMs?: number } = {},
): Promise<{ status: BatchStatus; polls: number }> {
  const deadline = Date.now() + (opts.timeoutMs ?? 60_000);
  for (let polls = 1; ; polls++) {
    const status = await api.getBatch(batchId);
    if ((status.pending ?? 0) === 0) return { status, polls };
    if (Date.now() > deadline) throw new Error(`batch ${batchId} still pending after ${opts.timeoutMs} ms`);
    await sleep(opts.intervalMs ?? 50);
  }
}
