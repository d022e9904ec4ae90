import { createHash, randomUUID } from 'node:crypto';
import type { z } from 'zod';
import {
  AcquirerCardError,
  AcquirerInvalidRequestError,
  AcquirerSignatureError,
  AcquirerUnavailableError,
  cardBrand,
  toAcquirerError,
  type AcquirerRefund,
  type Authorization,
  type CardAcquirer,
  type CardToken,
  type DeclineCode,
  type Wallet,
} from '../card-acquirer';
import {
  TEYA_SCOPES,
  TeyaCaptureResponse,
  TeyaError,
  TeyaOnlineTransaction,
  TeyaProcessTransactionResponse,
  TeyaRefundResponse,
  TeyaReversalResponse,
  TeyaTokenResponse,
  type TeyaStatusReason,
} from './teya-schemas';

export interface TeyaAcquirerOptions {
  /** The payments API, e.g. `https://api.teya.com` (staging: `https://api.teya.xyz`). */
  apiUrl: string;
  /** Teya ID's token endpoint, e.g. `https://id.teya.com/oauth/v2/oauth-token`. */
  tokenUrl: string;
  /** The store's API credentials (Teya Business Portal, "Integrations"); from configuration only. */
  clientId: string;
  clientSecret: string;
  /** The store every transaction is made in: Skil's platform store (decision 0163). */
  storeId: string;
  /** Wallets the store is enabled for at Teya; its public API takes Apple Pay only. */
  wallets?: readonly Wallet[];
  /** Retries after the first attempt for retryable failures, with the same idempotency key. */
  maxRetries?: number;
  timeoutMs?: number;
  backoffMs?: (n: number) => number;
}

/** Ids Skil keeps for Teya objects carry this prefix, so an environment router knows their acquirer. */
export const TEYA_ID_PREFIX = 'teya_';

/**
 * Teya's two ids of one transaction in one Skil authorization id: captures and refunds name the
 * transaction id, a read names the authentication id.
 */
function authorizationId(transactionId: string, authenticationId: string): string {
  return `${TEYA_ID_PREFIX}tr_${transactionId}_${authenticationId}`;
}
function parseAuthorizationId(id: string): { transactionId: string; authenticationId: string } {
  const m = /^teya_tr_([0-9a-f-]{36})_([0-9a-f-]{36})$/.exec(id);
  if (!m)
    throw new AcquirerInvalidRequestError(
      `${id} is not a Teya authorization`,
      'resource_missing',
      false,
      404,
    );
  return { transactionId: m[1]!, authenticationId: m[2]! };
}
function tokenId(id: string): string {
  const m = /^teya_tok_([0-9a-f-]{36})$/.exec(id);
  if (!m)
    throw new AcquirerInvalidRequestError(`${id} is not a Teya card token`, 'token_invalid', false, 400);
  return m[1]!;
}

/**
 * An Idempotency-Key within Teya's 64 characters, derived from Skil's business-identity key: the
 * same key always maps to the same header, so a retry after a crash is answered, not repeated.
 */
export function teyaIdempotencyKey(key: string): string {
  return `skil-${createHash('sha256').update(key).digest('base64url')}`;
}

/** A failed transaction's reason as Skil's decline code (the buyer sees its message). */
export function declineCodeOf(reason: TeyaStatusReason | null | undefined): DeclineCode {
  switch (reason) {
    case 'INSUFFICIENT_FUNDS':
    case 'CARD_LIMIT_EXCEEDED':
    case 'EXCEEDS_AMOUNT_LIMIT':
    case 'NEGATIVE_BALANCE':
    case 'NEGATIVE_BALANCE_LIMIT':
      return 'insufficient_funds';
    case 'CARD_EXPIRED':
      return 'expired_card';
    case 'INCORRECT_CARD_AUTHENTICATION':
    case 'CANNOT_VALIDATE_AUTHENTICATION':
    case 'ECOM_NEGATIVE_CARD_AUTHENTICATION_VERIFICATION':
    case 'SCA_REQUIRED':
    case 'SCA_PIN_REQUIRED':
      return 'authentication_failed';
    default:
      return 'generic_decline';
  }
}

/** A card refused while it is verified and tokenized, as the codes the checkout shows. */
function tokenizeErrorCode(reason: TeyaStatusReason | null | undefined): string {
  if (reason === 'INVALID_CARD_NUMBER' || reason === 'ACCOUNT_INVALID') return 'incorrect_number';
  if (reason === 'CARD_EXPIRED') return 'expired_card';
  return declineCodeOf(reason) === 'generic_decline' ? 'generic_decline' : declineCodeOf(reason);
}

/**
 * Teya's e-commerce payments API behind `CardAcquirer` (decision 0163). Tokenizing is an
 * ACCOUNT_VERIFICATION with `store_payment_method` (Teya has no separate token endpoint); an
 * authorization is a PRE_AUTHORISATION on the saved token, captured by `/v1/transactions/{id}/capture`,
 * voided by a reversal and refunded by `/v3/refunds`. Every answer is parsed by the schemas written
 * from Teya's reference: an answer that does not match is an error, never read by guesswork.
 *
 * Not in Teya's public API, so answered as a clear "not supported": dispute evidence, accepting a
 * dispute and dispute notifications (decision 0164). A 3-D Secure challenge (Teya answers 202 with
 * HTML to show the cardholder) is a decline with `authentication_failed` until Skil serves that
 * HTML (decision 0163).
 */
export function createTeyaCardAcquirer(
  opts: TeyaAcquirerOptions,
): CardAcquirer & { wallets: readonly Wallet[] } {
  const maxRetries = opts.maxRetries ?? 2;
  const timeoutMs = opts.timeoutMs ?? 20_000;
  const backoff = opts.backoffMs ?? ((n: number) => 100 * 2 ** (n - 1));
  const api = opts.apiUrl.replace(/\/$/, '');
  let token: { value: string; until: number } | null = null;

  /** A bearer token from Teya ID, reused until a minute before it expires (Teya's own advice). */
  async function accessToken(): Promise<string> {
    if (token && Date.now() < token.until) return token.value;
    let res: Response;
    try {
      res = await fetch(opts.tokenUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'client_credentials',
          client_id: opts.clientId,
          client_secret: opts.clientSecret,
          scope: TEYA_SCOPES.join(' '),
        }).toString(),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (err) {
      throw new AcquirerUnavailableError(`Teya ID: ${(err as Error).message}`, 'network_error', true, null);
    }
    const body: unknown = await res.json().catch(() => undefined);
    if (!res.ok) throw toAcquirerError({ status: res.status, body: errorBody(body) });
    const parsed = read(TeyaTokenResponse, body, 'token');
    token = { value: parsed.access_token, until: Date.now() + Math.max(0, parsed.expires_in - 60) * 1000 };
    return token.value;
  }

  /** Teya's `{code, description}` in the `{error: {code, message}}` shape `toAcquirerError` reads. */
  function errorBody(body: unknown): unknown {
    const e = TeyaError.safeParse(body);
    return e.success
      ? { error: { code: e.data.code.toLowerCase(), message: e.data.description } }
      : undefined;
  }

  function read<S extends z.ZodTypeAny>(schema: S, body: unknown, what: string): z.infer<S> {
    const parsed = schema.safeParse(body);
    if (!parsed.success)
      throw new AcquirerUnavailableError(
        `Teya's ${what} answer does not match its published schema: ${parsed.error.issues
          .map((i) => `${i.path.join('.')}: ${i.message}`)
          .join('; ')}`,
        'unexpected_response',
        false,
        null,
      );
    return parsed.data;
  }

  /** One operation with retries; a 401 fetches a new token once (it may have been revoked early). */
  async function request(
    method: 'GET' | 'POST',
    path: string,
    body: unknown,
    key: string | undefined,
  ): Promise<{ status: number; body: unknown }> {
    let renewed = false;
    for (let attempt = 0; ; attempt++) {
      let raw: { status: number | null; body?: unknown; networkError?: string };
      try {
        const headers: Record<string, string> = { authorization: `Bearer ${await accessToken()}` };
        if (body !== undefined) headers['content-type'] = 'application/json';
        if (key !== undefined) headers['idempotency-key'] = teyaIdempotencyKey(key);
        const res = await fetch(api + path, {
          method,
          headers,
          ...(body !== undefined && { body: JSON.stringify(body) }),
          signal: AbortSignal.timeout(timeoutMs),
        });
        const text = await res.text();
        let parsed: unknown;
        try {
          parsed = text ? JSON.parse(text) : undefined;
        } catch {
          parsed = undefined;
        }
        if (res.status >= 200 && res.status < 300) return { status: res.status, body: parsed };
        if (res.status === 401 && !renewed) {
          renewed = true;
          token = null;
          attempt--;
          continue;
        }
        // 422 is Teya's idempotency conflict: the same key with a different request, a bug of ours.
        raw = { status: res.status, body: errorBody(parsed) };
      } catch (err) {
        if (err instanceof AcquirerUnavailableError && !err.retryable) throw err;
        if (err instanceof AcquirerInvalidRequestError || err instanceof AcquirerCardError) throw err;
        raw = { status: null, networkError: (err as Error).message };
      }
      const error = toAcquirerError(raw);
      if (!error.retryable || attempt >= maxRetries) throw error;
      await new Promise((r) => setTimeout(r, backoff(attempt + 1)));
    }
  }

  const notSupported = (what: string) =>
    Promise.reject(
      new AcquirerInvalidRequestError(
        `Teya's public API offers no ${what}; handle it in the Teya Business Portal`,
        'not_supported',
        false,
        null,
      ),
    );

  return {
    wallets: opts.wallets ?? [],

    async tokenize(req) {
      if (req.wallet)
        throw new AcquirerCardError(
          'A wallet payment needs the wallet’s own payment data from the buyer’s device',
          'wallet_data_required',
          false,
          402,
        );
      const res = await request(
        'POST',
        '/v3/transactions/online',
        {
          amount: { currency: 'ISK', value: 0 },
          initiator: 'CUSTOMER',
          payment_method: {
            type: 'CARD',
            card: {
              number: req.number,
              expiry_month: String(req.exp_month).padStart(2, '0'),
              expiry_year: String(req.exp_year),
              cvc: req.cvc,
            },
          },
          store_id: opts.storeId,
          type: 'ACCOUNT_VERIFICATION',
          store_payment_method: true,
        },
        // A verification moves no money: a retried one is a second verification, nothing more.
        randomUUID(),
      );
      const answer = read(TeyaProcessTransactionResponse, res.body, 'account verification');
      const tx = answer.online_transaction;
      if (!tx)
        throw new AcquirerCardError(
          'The card needs authentication to be saved',
          'authentication_failed',
          false,
          402,
        );
      if (tx.status !== 'SUCCESS')
        throw new AcquirerCardError(
          `Teya refused the card (${tx.status_reason ?? tx.status})`,
          tokenizeErrorCode(tx.status_reason),
          false,
          402,
        );
      const saved = tx.token_response;
      if (saved?.token_status !== 'SUCCESS' || !saved.token_id)
        throw new AcquirerCardError(
          saved?.failure_reason ?? 'Teya did not save the card',
          'generic_decline',
          false,
          402,
        );
      const token: CardToken = {
        token: `${TEYA_ID_PREFIX}tok_${saved.token_id}`,
        brand: cardBrand(req.number),
        last4: req.number.slice(-4),
        exp_month: req.exp_month,
        exp_year: req.exp_year,
        wallet: null,
      };
      return token;
    },

    async authorize(req) {
      const reference =
        req.idempotency_key.length <= 60 ? req.idempotency_key : teyaIdempotencyKey(req.idempotency_key);
      const res = await request(
        'POST',
        '/v3/transactions/online',
        {
          amount: { currency: req.currency, value: req.amount },
          initiator: 'CUSTOMER',
          payment_method: {
            type: 'TOKEN',
            token: { token_id: tokenId(req.token), recurring_payment_type: 'CARD_ON_FILE' },
          },
          store_id: opts.storeId,
          type: 'PRE_AUTHORISATION',
          merchant_reference_id: reference,
          redirect_url: req.return_url,
        },
        req.idempotency_key,
      );
      const answer = read(TeyaProcessTransactionResponse, res.body, 'transaction');
      const base = {
        amount: req.amount,
        amount_captured: 0,
        amount_refunded: 0,
        action_url: null,
        fee: null,
      };
      const redirect = answer.redirect_transaction_response;
      if (redirect)
        return {
          ...base,
          id: authorizationId(redirect.transaction_id, redirect.authentication_id),
          status: 'declined',
          decline_code: 'authentication_failed',
        };
      const tx = answer.online_transaction!;
      if (tx.status === 'PENDING')
        throw new AcquirerUnavailableError(
          'Teya has not decided the transaction yet',
          'pending',
          true,
          res.status,
        );
      return {
        ...base,
        id: authorizationId(tx.transaction_id, tx.authentication_id),
        status: tx.status === 'SUCCESS' ? 'authorized' : 'declined',
        decline_code: tx.status === 'SUCCESS' ? null : declineCodeOf(tx.status_reason),
      };
    },

    async retrieve(id) {
      const { authenticationId } = parseAuthorizationId(id);
      const res = await request('GET', `/v2/transactions/online/${authenticationId}`, undefined, undefined);
      const tx = read(TeyaOnlineTransaction, res.body, 'transaction');
      // Teya's transaction read carries no amounts; the one caller of retrieve (after a challenge)
      // reads the status only.
      const auth: Authorization = {
        id,
        status:
          tx.status === 'SUCCESS' ? 'authorized' : tx.status === 'PENDING' ? 'requires_action' : 'declined',
        amount: 0,
        amount_captured: 0,
        amount_refunded: 0,
        action_url: null,
        decline_code: tx.status === 'FAILURE' ? declineCodeOf(tx.status_reason) : null,
        fee: null,
      };
      return auth;
    },

    async capture(req) {
      const { transactionId } = parseAuthorizationId(req.authorization);
      const res = await request(
        'POST',
        `/v1/transactions/${transactionId}/capture`,
        { amount: req.amount },
        req.idempotency_key,
      );
      const answer = read(TeyaCaptureResponse, res.body, 'capture');
      if (answer.status === 'FAILURE')
        throw new AcquirerInvalidRequestError(
          `Teya refused the capture (${answer.status_reason ?? 'no reason given'})`,
          (answer.status_reason ?? 'capture_failed').toLowerCase(),
          false,
          res.status,
        );
      // PENDING (202) is a capture Teya has taken and completes itself: the money is coming.
      return {
        id: req.authorization,
        status: 'captured',
        amount: req.amount,
        amount_captured: req.amount,
        amount_refunded: 0,
        action_url: null,
        decline_code: null,
        // Teya reports its fees in its own statements, not on the capture (decision 0163).
        fee: null,
      };
    },

    async void(authorization) {
      const { transactionId } = parseAuthorizationId(authorization);
      const res = await request(
        'POST',
        '/v2/reversals',
        { transaction_id: transactionId, reversal_reason: 'CARD_REVERSAL' },
        undefined,
      );
      const answer = read(TeyaReversalResponse, res.body, 'reversal');
      if (answer.status === 'FAILURE')
        throw new AcquirerInvalidRequestError(
          'Teya refused the reversal',
          'reversal_failed',
          false,
          res.status,
        );
      return {
        id: authorization,
        status: 'voided',
        amount: answer.reversal_amount.amount,
        amount_captured: 0,
        amount_refunded: 0,
        action_url: null,
        decline_code: null,
        fee: null,
      };
    },

    async refund(req): Promise<AcquirerRefund> {
      const { transactionId } = parseAuthorizationId(req.authorization);
      const res = await request(
        'POST',
        '/v3/refunds',
        { transaction_id: transactionId, amount: req.amount },
        req.idempotency_key,
      );
      // 202: Teya took the refund and completes it itself; its reference bodyless answer has no id.
      if (res.status === 202)
        return {
          id: `${TEYA_ID_PREFIX}re_${teyaIdempotencyKey(req.idempotency_key)}`,
          authorization: req.authorization,
          amount: req.amount,
        };
      const answer = read(TeyaRefundResponse, res.body, 'refund');
      if (answer.status === 'FAILURE')
        throw new AcquirerInvalidRequestError(
          `Teya refused the refund (${answer.status_reason ?? 'no reason given'})`,
          (answer.status_reason ?? 'refund_failed').toLowerCase(),
          false,
          res.status,
        );
      return {
        id: `${TEYA_ID_PREFIX}re_${answer.transaction_id}`,
        authorization: req.authorization,
        amount: answer.refund_amount.amount,
      };
    },

    submitDisputeEvidence: () => notSupported('dispute evidence submission'),
    acceptDispute: () => notSupported('way to accept a dispute'),
    parseNotification() {
      throw new AcquirerSignatureError(
        'Teya publishes no dispute notifications; nothing is accepted on its behalf',
        'not_supported',
        false,
        401,
      );
    },
  };
}
