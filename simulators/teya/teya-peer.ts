import { createHash, randomBytes, randomUUID } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { z } from 'zod';
import {
  TEYA_SCOPES,
  TeyaError,
  TeyaTokenRequest,
  TeyaTokenResponse,
  teyaOperation,
  type TeyaOperation,
  type TeyaCaptureRequest,
  type TeyaProcessTransactionRequest,
  type TeyaRefundRequest,
  type TeyaReversalRequest,
  type TeyaStatusReason,
} from '../../adapters/acquirers/teya/teya-schemas';

/**
 * A simulated Teya (decision 0164): Teya ID's client-credentials token endpoint and the payments
 * operations Skil uses, in memory, for tests. It holds every exchange to the schemas written from
 * Teya's published reference: a request that does not match is answered 400 as Teya would and
 * recorded as a violation, and so is any answer of its own that would not match, so a test that
 * ends with `violations` empty shows both sides kept to the reference.
 *
 * Test cards (PANs) decide outcomes, as an acquirer's sandbox does: 4000 0000 0000 0002 is
 * declined (CARD_DECLINED), 4000 0000 0000 9995 has insufficient funds, 4000 0000 0000 0069 has
 * expired, 4000 0000 0000 3220 asks for a 3-D Secure challenge; a number failing the Luhn check
 * is INVALID_CARD_NUMBER; any other number is approved.
 */

export interface TeyaPeerOptions {
  clientId: string;
  clientSecret: string;
  storeId: string;
  /** Token lifetime in seconds (Teya: 15 minutes in production). */
  tokenTtlSeconds?: number;
}

export interface TeyaExchange {
  operation: string;
  status: number;
  idempotencyKey: string | null;
  request: unknown;
}

export interface TeyaPeer {
  apiUrl: string;
  tokenUrl: string;
  /** Every schema or protocol violation seen, by either side; empty when both kept to the reference. */
  violations: string[];
  exchanges: TeyaExchange[];
  tokensIssued(): number;
  stop(): Promise<void>;
}

interface Tx {
  transactionId: string;
  authenticationId: string;
  type: z.infer<typeof TeyaProcessTransactionRequest>['type'];
  amount: number;
  currency: string;
  status: 'SUCCESS' | 'FAILURE' | 'PENDING';
  reason: TeyaStatusReason | null;
  captured: number;
  refunded: number;
  reversed: boolean;
  createdAt: string;
}

const DECLINES: Record<string, TeyaStatusReason> = {
  '4000000000000002': 'CARD_DECLINED',
  '4000000000009995': 'INSUFFICIENT_FUNDS',
  '4000000000000069': 'CARD_EXPIRED',
};
const CHALLENGE = '4000000000003220';

function luhn(pan: string): boolean {
  let sum = 0;
  for (let i = 0; i < pan.length; i++) {
    let d = Number(pan[pan.length - 1 - i]);
    if (i % 2 === 1) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  }
  return sum % 10 === 0;
}

const SCOPE_OF: Record<string, (typeof TEYA_SCOPES)[number] | null> = {
  process_online_transaction: 'transactions/online/create',
  get_online_transaction: 'transactions/online/id/get',
  capture: 'captures/create',
  refund: 'refunds/create',
  reversal: null,
};

type Reply = { status: number; body: unknown };
const error = (status: number, code: string, description: string, invalid?: z.ZodError): Reply => ({
  status,
  body: {
    code,
    description,
    ...(invalid && {
      invalid_params: invalid.issues.map((i) => ({ field: i.path.join('.') || '(body)', reason: i.message })),
    }),
  },
});

export async function startTeyaPeer(opts: TeyaPeerOptions): Promise<TeyaPeer> {
  const violations: string[] = [];
  const exchanges: TeyaExchange[] = [];
  const tokens = new Map<string, { scopes: Set<string>; until: number }>();
  const savedCards = new Map<string, string>();
  const txByTransaction = new Map<string, Tx>();
  const txByAuthentication = new Map<string, Tx>();
  const replays = new Map<string, { digest: string; reply: Reply }>();
  const cardAcceptorId = '50001325';
  const now = () => new Date().toISOString();

  function readBody(req: IncomingMessage): Promise<string> {
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
      req.on('error', reject);
    });
  }

  function send(res: ServerResponse, reply: Reply): void {
    if (reply.body === undefined) {
      res.writeHead(reply.status).end();
      return;
    }
    const text = JSON.stringify(reply.body);
    res.writeHead(reply.status, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(text),
    });
    res.end(text);
  }

  /** Holds an answer to the reference before it leaves; a mismatch is recorded and becomes a 500. */
  function checked(op: TeyaOperation | null, reply: Reply): Reply {
    if (reply.status >= 400) {
      const e = TeyaError.safeParse(reply.body);
      if (!e.success) violations.push(`answer ${reply.status} of ${op?.name ?? 'token'}: ${e.error.message}`);
      return reply;
    }
    const schema = op
      ? (op.responses as Record<number, z.ZodTypeAny | null | undefined>)[reply.status]
      : TeyaTokenResponse;
    if (schema === undefined) {
      violations.push(`${op?.name}: status ${reply.status} is not in the reference`);
      return error(500, 'INTERNAL_SERVER_ERROR', 'undocumented status');
    }
    if (schema === null) {
      if (reply.body !== undefined)
        violations.push(`${op?.name}: ${reply.status} has no body in the reference`);
      return reply;
    }
    const parsed = schema.safeParse(reply.body);
    if (!parsed.success) {
      violations.push(`answer ${reply.status} of ${op?.name ?? 'token'}: ${parsed.error.message}`);
      return error(500, 'INTERNAL_SERVER_ERROR', 'the simulated answer broke the reference');
    }
    return reply;
  }

  function issueToken(form: string): Reply {
    const fields = Object.fromEntries(new URLSearchParams(form));
    const parsed = TeyaTokenRequest.safeParse(fields);
    if (!parsed.success) {
      violations.push(`token request: ${parsed.error.message}`);
      return error(400, 'BAD_REQUEST', 'invalid token request', parsed.error);
    }
    if (parsed.data.client_id !== opts.clientId || parsed.data.client_secret !== opts.clientSecret)
      return error(401, 'UNAUTHORISED', 'unknown client');
    const scopes = new Set((parsed.data.scope ?? '').split(' ').filter(Boolean));
    const unknown = [...scopes].filter((s) => !(TEYA_SCOPES as readonly string[]).includes(s));
    if (unknown.length) return error(400, 'BAD_REQUEST', `unknown scopes: ${unknown.join(' ')}`);
    const ttl = opts.tokenTtlSeconds ?? 900;
    const value = randomBytes(24).toString('base64url');
    tokens.set(value, { scopes, until: Date.now() + ttl * 1000 });
    return {
      status: 200,
      body: { access_token: value, token_type: 'bearer', expires_in: ttl, scope: [...scopes].join(' ') },
    };
  }

  function processTransaction(body: z.infer<typeof TeyaProcessTransactionRequest>): Reply {
    if (body.store_id !== opts.storeId)
      return error(403, 'FORBIDDEN', 'the credentials are not for this store');
    const m = body.payment_method;
    let pan: string | undefined;
    if (m.type === 'CARD') pan = m.card!.number;
    else if (m.type === 'TOKEN') pan = savedCards.get(m.token!.token_id);
    else return error(400, 'BAD_REQUEST', 'Apple Pay is not enabled for this store');
    if (body.type === 'ACCOUNT_VERIFICATION' && body.amount.value !== 0)
      return error(400, 'BAD_REQUEST', 'an account verification has no amount');
    if (body.type !== 'ACCOUNT_VERIFICATION' && body.amount.value < 1)
      return error(400, 'BAD_REQUEST', 'amount.value must be greater than 0');
    const tx: Tx = {
      transactionId: randomUUID(),
      authenticationId: randomUUID(),
      type: body.type,
      amount: body.amount.value,
      currency: body.amount.currency,
      status: 'SUCCESS',
      reason: null,
      captured: body.type === 'SALE' ? body.amount.value : 0,
      refunded: 0,
      reversed: false,
      createdAt: now(),
    };
    if (pan === undefined) Object.assign(tx, { status: 'FAILURE', reason: 'ACCOUNT_INVALID' });
    else if (!luhn(pan)) Object.assign(tx, { status: 'FAILURE', reason: 'INVALID_CARD_NUMBER' });
    else if (DECLINES[pan] && (body.type !== 'ACCOUNT_VERIFICATION' || DECLINES[pan] === 'CARD_EXPIRED'))
      Object.assign(tx, { status: 'FAILURE', reason: DECLINES[pan] });
    txByTransaction.set(tx.transactionId, tx);
    txByAuthentication.set(tx.authenticationId, tx);
    if (pan === CHALLENGE && body.type !== 'ACCOUNT_VERIFICATION' && tx.status === 'SUCCESS') {
      tx.status = 'PENDING';
      return {
        status: 202,
        body: {
          type: 'REDIRECT_TRANSACTION_RESPONSE',
          redirect_transaction_response: {
            authentication_id: tx.authenticationId,
            transaction_id: tx.transactionId,
            status: 'PENDING',
            redirect_html:
              '<html><body><form method="post" action="https://acs.invalid/challenge"></form></body></html>',
            created_at: tx.createdAt,
            updated_at: tx.createdAt,
          },
        },
      };
    }
    let tokenResponse: unknown;
    if (body.store_payment_method && tx.status === 'SUCCESS' && pan !== undefined) {
      const id = randomUUID();
      savedCards.set(id, pan);
      tokenResponse = { token_id: id, token_status: 'SUCCESS' };
    }
    return {
      status: 201,
      body: {
        type: 'ONLINE_TRANSACTION',
        online_transaction: {
          ...onlineTransaction(tx),
          ...(tokenResponse !== undefined && { token_response: tokenResponse }),
        },
      },
    };
  }

  function onlineTransaction(tx: Tx) {
    return {
      authentication_id: tx.authenticationId,
      transaction_id: tx.transactionId,
      status: tx.status,
      ...(tx.reason && { status_reason: tx.reason }),
      created_at: tx.createdAt,
      updated_at: now(),
      issuer_result:
        tx.status === 'SUCCESS' ? { approval_code: '123456', response_code: '00' } : { response_code: '05' },
    };
  }

  function handle(op: TeyaOperation, pathname: string, body: unknown): Reply {
    switch (op.name) {
      case 'process_online_transaction':
        return processTransaction(body as z.infer<typeof TeyaProcessTransactionRequest>);
      case 'get_online_transaction': {
        const tx = txByAuthentication.get(pathname.split('/').pop()!);
        return tx
          ? { status: 200, body: onlineTransaction(tx) }
          : error(404, 'NOT_FOUND', 'no such transaction');
      }
      case 'capture': {
        const req = body as z.infer<typeof TeyaCaptureRequest>;
        const tx = txByTransaction.get(pathname.split('/')[3]!);
        if (!tx) return error(404, 'NOT_FOUND', 'no such transaction');
        if (tx.type !== 'PRE_AUTHORISATION' || tx.status !== 'SUCCESS' || tx.reversed)
          return error(400, 'BAD_REQUEST', 'only an approved pre-authorisation can be captured');
        if (tx.captured > 0)
          return error(409, 'CONFLICT', 'only one capture is allowed per pre-authorisation');
        if (req.amount > tx.amount)
          return error(400, 'BAD_REQUEST', 'the capture amount exceeds the authorised amount');
        tx.captured = req.amount;
        return {
          status: 201,
          body: {
            transaction_id: `tr_${randomUUID()}`,
            card_acceptor_id: cardAcceptorId,
            status: 'SUCCESS',
            issuer_result: { approval_code: '123456', response_code: '00' },
            processed_at: now(),
          },
        };
      }
      case 'refund': {
        const req = body as z.infer<typeof TeyaRefundRequest>;
        const tx = txByTransaction.get(req.transaction_id);
        if (!tx) return error(404, 'NOT_FOUND', 'no such transaction');
        if (req.amount > tx.captured - tx.refunded)
          return error(400, 'BAD_REQUEST', 'the refund exceeds what was captured and not yet refunded');
        tx.refunded += req.amount;
        return {
          status: 201,
          body: {
            transaction_id: `tr_${randomUUID()}`,
            status: 'SUCCESS',
            issuer_result: { approval_code: '123456', response_code: '00' },
            refund_amount: { amount: req.amount, currency: tx.currency },
            card_acceptor_id: cardAcceptorId,
            created_at: now(),
          },
        };
      }
      case 'reversal': {
        const req = body as z.infer<typeof TeyaReversalRequest>;
        const tx = req.transaction_id ? txByTransaction.get(req.transaction_id) : undefined;
        if (!tx) return error(404, 'NOT_FOUND', 'no such transaction');
        if (tx.captured > 0)
          return error(400, 'BAD_REQUEST', 'a captured transaction is refunded, not reversed');
        tx.reversed = true;
        return {
          status: 200,
          body: { status: 'SUCCESS', reversal_amount: { amount: tx.amount, currency: tx.currency } },
        };
      }
    }
  }

  async function route(
    req: IncomingMessage,
  ): Promise<{ op: TeyaOperation | null; reply: Reply; key: string | null; request: unknown }> {
    const url = new URL(req.url ?? '/', 'http://peer');
    const text = await readBody(req);
    if (req.method === 'POST' && url.pathname === '/oauth/v2/oauth-token') {
      if (!/^application\/x-www-form-urlencoded/.test(req.headers['content-type'] ?? '')) {
        violations.push('token request: Content-Type must be application/x-www-form-urlencoded');
        return { op: null, reply: error(400, 'BAD_REQUEST', 'form body expected'), key: null, request: text };
      }
      return { op: null, reply: issueToken(text), key: null, request: '(credentials)' };
    }
    const op = teyaOperation(req.method ?? '', url.pathname);
    if (!op) {
      violations.push(`${req.method} ${url.pathname} is no operation of the reference`);
      return { op: null, reply: error(404, 'NOT_FOUND', 'no such operation'), key: null, request: text };
    }
    const bearer = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1];
    const token = bearer ? tokens.get(bearer) : undefined;
    if (!token || token.until < Date.now())
      return {
        op,
        reply: error(401, 'UNAUTHORISED', 'missing or expired access token'),
        key: null,
        request: text,
      };
    const scope = SCOPE_OF[op.name];
    if (scope && !token.scopes.has(scope))
      return {
        op,
        reply: error(403, 'FORBIDDEN', `the token lacks scope ${scope}`),
        key: null,
        request: text,
      };
    const key = typeof req.headers['idempotency-key'] === 'string' ? req.headers['idempotency-key'] : null;
    if (op.idempotencyKey === 'required' && !key) {
      violations.push(`${op.name}: Idempotency-Key is required`);
      return {
        op,
        reply: error(400, 'BAD_REQUEST', 'Idempotency-Key header is required'),
        key,
        request: text,
      };
    }
    if (op.idempotencyKey === 'none' && key)
      violations.push(`${op.name}: the reference has no Idempotency-Key`);
    if (key && (key.length < 1 || key.length > 64)) {
      violations.push(`${op.name}: Idempotency-Key of ${key.length} characters (1 to 64)`);
      return { op, reply: error(400, 'BAD_REQUEST', 'Idempotency-Key too long'), key, request: text };
    }
    let body: unknown;
    if (op.request) {
      if (!/^application\/json/.test(req.headers['content-type'] ?? ''))
        violations.push(`${op.name}: Content-Type must be application/json`);
      try {
        body = JSON.parse(text);
      } catch {
        violations.push(`${op.name}: the body is not JSON`);
        return { op, reply: error(400, 'BAD_REQUEST', 'the body is not JSON'), key, request: text };
      }
      const parsed = op.request.safeParse(body);
      if (!parsed.success) {
        violations.push(`${op.name} request: ${parsed.error.message}`);
        return { op, reply: error(400, 'BAD_REQUEST', 'Invalid input', parsed.error), key, request: body };
      }
    } else if (text.length > 0) violations.push(`${op.name}: a body where the reference has none`);
    if (key) {
      const digest = createHash('sha256').update(`${op.name} ${url.pathname} ${text}`).digest('hex');
      const seen = replays.get(key);
      if (seen && seen.digest !== digest)
        return {
          op,
          reply: error(422, 'IDEMPOTENCY_CONFLICT', 'the key was used for another request'),
          key,
          request: body,
        };
      if (seen) return { op, reply: seen.reply, key, request: body };
      const reply = handle(op, url.pathname, body);
      if (reply.status < 500) replays.set(key, { digest, reply });
      return { op, reply, key, request: body };
    }
    return { op, reply: handle(op, url.pathname, body), key, request: body };
  }

  const server = http.createServer((req, res) => {
    route(req)
      .then(({ op, reply, key, request }) => {
        const answer = checked(op, reply);
        exchanges.push({
          operation: op?.name ?? 'token',
          status: answer.status,
          idempotencyKey: key,
          request,
        });
        send(res, answer);
      })
      .catch((err: unknown) => {
        violations.push(`peer failure: ${String(err)}`);
        send(res, error(500, 'INTERNAL_SERVER_ERROR', 'peer failure'));
      });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    apiUrl: base,
    tokenUrl: `${base}/oauth/v2/oauth-token`,
    violations,
    exchanges,
    tokensIssued: () => tokens.size,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
