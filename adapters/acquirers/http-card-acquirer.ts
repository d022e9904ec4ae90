import http from 'node:http';
import https from 'node:https';
import {
  AcquirerSignatureError,
  toAcquirerError,
  type AcquirerDispute,
  type AcquirerRefund,
  type Authorization,
  type AuthorizeRequest,
  type CaptureRequest,
  type CardAcquirer,
  type CardToken,
  type RefundRequest,
  type TokenizeRequest,
} from './card-acquirer';
import type { Config } from '../../stack/config';
import { verifyNotification } from './acquirer-notifications';
import { createEnvironmentAcquirer } from './environment-acquirer';
import { TEYA_ID_PREFIX, createTeyaCardAcquirer } from './teya/teya-card-acquirer';

export interface HttpCardAcquirerOptions {
  /** e.g. `http://127.0.0.1:3020`, the simulated acquirer of `npm start`. */
  baseUrl: string;
  /** Retries after the first attempt for retryable failures, with the same idempotency key. */
  maxRetries?: number;
  timeoutMs?: number;
  /** Delay before retry n (1-based); exponential from 50 ms by default. */
  backoffMs?: (n: number) => number;
  /** The secret the acquirer signs its dispute notifications with (decision 0155); unset: none verify. */
  notificationSecret?: string | undefined;
}

/**
 * A `CardAcquirer` over HTTP+JSON. One private request function does what stripe-node's
 * RequestSender does: an Idempotency-Key on every POST, a timeout, and retries only for failures
 * that `toAcquirerError` classifies as retryable. Requests go through node:http with a keep-alive
 * agent rather than fetch: a renewal day makes two requests per subscription, and fetch's streams
 * cost several times the CPU of a plain request (decision 0102).
 */
export function createHttpCardAcquirer(opts: HttpCardAcquirerOptions): CardAcquirer {
  const maxRetries = opts.maxRetries ?? 2;
  const timeoutMs = opts.timeoutMs ?? 15_000;
  const backoff = opts.backoffMs ?? ((n: number) => 50 * 2 ** (n - 1));
  const base = new URL(opts.baseUrl);
  const lib = base.protocol === 'https:' ? https : http;
  const agent = new lib.Agent({ keepAlive: true });
  const prefix = base.pathname.replace(/\/$/, '');

  /** One exchange: the status and body text, or a rejection for a network failure or timeout. */
  function exchange(
    method: 'GET' | 'POST',
    path: string,
    body: string | undefined,
    key: string | undefined,
  ): Promise<{ status: number; text: string }> {
    return new Promise((resolve, reject) => {
      const headers: Record<string, string | number> = {};
      if (body !== undefined) {
        headers['content-type'] = 'application/json';
        headers['content-length'] = Buffer.byteLength(body);
      }
      if (key !== undefined) headers['idempotency-key'] = key;
      const req = lib.request(new URL(prefix + path, base), { method, headers, agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          clearTimeout(timer);
          resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') });
        });
        res.on('error', (err) => {
          clearTimeout(timer);
          reject(err);
        });
      });
      const timer = setTimeout(() => req.destroy(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
      req.on('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
      req.end(body);
    });
  }

  async function request<T>(method: 'GET' | 'POST', path: string, body?: unknown, key?: string): Promise<T> {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    for (let attempt = 0; ; attempt++) {
      let raw: { status: number | null; body?: unknown; networkError?: string };
      try {
        const res = await exchange(method, path, payload, key);
        let parsed: unknown;
        try {
          parsed = JSON.parse(res.text);
        } catch {
          parsed = undefined;
        }
        if (res.status >= 200 && res.status < 300) return parsed as T;
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
    tokenize: ({ livemode: _livemode, ...req }: TokenizeRequest) =>
      request<CardToken>('POST', '/v1/tokens', req),
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
    submitDisputeEvidence: ({ dispute, evidence, idempotency_key }) =>
      request<AcquirerDispute>(
        'POST',
        `/v1/disputes/${encodeURIComponent(dispute)}/evidence`,
        { evidence },
        idempotency_key,
      ),
    acceptDispute: (dispute: string, key: string) =>
      request<AcquirerDispute>('POST', `/v1/disputes/${encodeURIComponent(dispute)}/accept`, {}, key),
    parseNotification(body: Buffer, signature: string | undefined) {
      if (opts.notificationSecret === undefined)
        throw new AcquirerSignatureError('No notification secret is configured', 'no_secret', false, 401);
      return verifyNotification(opts.notificationSecret, body, signature);
    },
  };
}

/** A card acquirer for the API and the worker, and the origin its 3-D Secure pages come from. */
export interface ConfiguredAcquirer {
  client: CardAcquirer;
  /** Allowed as a form target of the checkout page (the 3-D Secure challenge). */
  origin: string;
}

/**
 * The acquirer of SIMULATED_ACQUIRER_URL (decision 0102); unset, the process cannot take card
 * payments. With the TEYA_* settings, live-mode cards go to Teya through an environment router
 * (decisions 0163, 0165).
 */
export function cardAcquirerFromConfig(
  config: Pick<Config, 'SIMULATED_ACQUIRER_URL' | 'ACQUIRER_NOTIFICATION_SECRET'> &
    Partial<
      Pick<
        Config,
        | 'TEYA_API_URL'
        | 'TEYA_TOKEN_URL'
        | 'TEYA_CLIENT_ID'
        | 'TEYA_CLIENT_SECRET'
        | 'TEYA_STORE_ID'
        | 'TEYA_WALLETS'
      >
    >,
): ConfiguredAcquirer {
  const url = config.SIMULATED_ACQUIRER_URL;
  if (url === undefined)
    throw new Error('SIMULATED_ACQUIRER_URL is not set: `npm start` sets it to the simulated card acquirer');
  const test = httpAcquirerAt(url, config.ACQUIRER_NOTIFICATION_SECRET);
  const { TEYA_API_URL, TEYA_CLIENT_ID, TEYA_CLIENT_SECRET, TEYA_STORE_ID } = config;
  if (!TEYA_API_URL || !TEYA_CLIENT_ID || !TEYA_CLIENT_SECRET || !TEYA_STORE_ID) return test;
  const teya = createTeyaCardAcquirer({
    apiUrl: TEYA_API_URL,
    tokenUrl: config.TEYA_TOKEN_URL ?? 'https://id.teya.com/oauth/v2/oauth-token',
    clientId: TEYA_CLIENT_ID,
    clientSecret: TEYA_CLIENT_SECRET,
    storeId: TEYA_STORE_ID,
    wallets: config.TEYA_WALLETS ?? [],
  });
  return {
    client: createEnvironmentAcquirer(test.client, {
      client: teya,
      idPrefix: TEYA_ID_PREFIX,
      wallets: teya.wallets,
    }),
    origin: test.origin,
  };
}

/** The HTTP client of the acquirer at `baseUrl`, with its origin; `notificationSecret` verifies its notifications. */
export function httpAcquirerAt(baseUrl: string, notificationSecret?: string): ConfiguredAcquirer {
  return {
    client: createHttpCardAcquirer({ baseUrl, notificationSecret }),
    origin: new URL(baseUrl).origin,
  };
}
