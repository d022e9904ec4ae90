import { randomBytes, randomUUID } from 'node:crypto';
import type { TLSSocket } from 'node:tls';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import {
  parseClaimId,
  type AlterClaimBatchDetails,
  type ClaimTransaction,
  type CreateClaimDetails,
} from '../../adapters/banks/claims-api';
import { CLAIM_PROBLEM_TYPE_PREFIX } from '../../adapters/banks/claims-errors';
import { ClaimBatches } from './claims-batches';
import { ClaimRuleError, type ClaimsLedger } from './claims-ledger';

/**
 * The simulated bank's IOBWS 3.1 claims API (the subset Skil uses): OAuth2 client credentials,
 * `POST/GET/PATCH /v1/claims…`, claim transactions, and `/v1/batches` processed in the background.
 * Rejections follow the standard's shapes: RFC 7807 `Error4xx` bodies, `messages[]` for 403/404,
 * per-claim `claimStatusError` in batches (decision 0073). Idempotency per TS 316: the first
 * answer to an X-Idempotency-Key is replayed; a key still in flight answers 409.
 */

export interface OAuthClient {
  clientId: string;
  /** Omit for a client that authenticates with its TLS certificate (CN = clientId). */
  clientSecret?: string;
}

export interface ClaimsServiceOptions {
  ledger: ClaimsLedger;
  clients: OAuthClient[];
  tokenTtlSeconds?: number;
  /** Items processed per event-loop turn while a batch runs (default 500). */
  batchChunk?: number;
  maxBatchItems?: number;
}

type Answer = { status: number; body: unknown };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
function problem(status: number, code: string, detail: string, resultCode?: string): Answer {
  return {
    status,
    body: {
      type: resultCode ? `${CLAIM_PROBLEM_TYPE_PREFIX}${resultCode}` : `urn:iobws:error:${code}`,
      code,
      title: (resultCode ?? code).slice(0, 70),
      detail: detail.slice(0, 500),
    },
  };
}

function notFound(text: string): Answer {
  return {
    status: 404,
    body: { messages: [{ category: 'ERROR', code: 'RESOURCE_UNKNOWN', text: text.slice(0, 500) }] },
  };
}

/** A claim rule broken on a single-claim call: 400 with the result code in the problem type. */
function ruleAnswer(err: unknown): Answer {
  if (!(err instanceof ClaimRuleError)) throw err;
  if (err.resultCode === 'CLAIM_NOT_FOUND') return notFound(err.message);
  return problem(400, 'PARAMETER_NOT_CONSISTENT', err.message, err.resultCode);
}

interface TokenGrant {
  clientId: string;
  scopes: Set<string>;
  expiresAt: number;
}

/** The `/oauth2/token` and `/v1` routes. */
export function createClaimsRouter(opts: ClaimsServiceOptions): Router {
  const { ledger } = opts;
  const router = express.Router();
  const tokens = new Map<string, TokenGrant>();
  const idempotency = new Map<string, { done: false } | { done: true; answer: Answer }>();
  const batches = new ClaimBatches(ledger, opts.batchChunk);

  router.post('/oauth2/token', express.urlencoded({ extended: false }), (req: Request, res: Response) => {
    const form = (req.body ?? {}) as Record<string, string | undefined>;
    if (form.grant_type !== 'client_credentials')
      return void res.status(400).json({ error: 'unsupported_grant_type' });
    let clientId = form.client_id;
    let secret = form.client_secret;
    const basic = /^Basic (.+)$/i.exec(req.headers.authorization ?? '');
    if (basic) {
      const [id, pw] = Buffer.from(basic[1]!, 'base64').toString('utf8').split(':');
      clientId = decodeURIComponent(id ?? '');
      secret = decodeURIComponent(pw ?? '');
    }
    const client = opts.clients.find((c) => c.clientId === clientId);
    const socket = req.socket as Partial<TLSSocket>;
    const certCn = socket.authorized ? socket.getPeerCertificate?.()?.subject?.CN : undefined;
    const ok =
      client &&
      (client.clientSecret !== undefined ? secret === client.clientSecret : certCn === client.clientId);
    if (!ok) return void res.status(401).json({ error: 'invalid_client' });
    const granted = (form.scope ?? 'claims.read claims.write')
      .split(' ')
      .filter((s) => ['claims.read', 'claims.write'].includes(s));
    const ttl = opts.tokenTtlSeconds ?? 3600;
    const token = randomBytes(24).toString('base64url');
    tokens.set(token, {
      clientId: client.clientId,
      scopes: new Set(granted),
      expiresAt: Date.now() + ttl * 1000,
    });
    res.setHeader('Cache-Control', 'no-store');
    res.json({ access_token: token, token_type: 'Bearer', expires_in: ttl, scope: granted.join(' ') });
  });

  const v1 = express.Router();
  router.use('/v1', v1);

  // Every answer carries an X-Request-ID: the client's, or a new one when it sent none usable. Set
  // before the body is parsed, so a malformed body's 400 carries one too.
  v1.use((req: Request, res: Response, next: NextFunction) => {
    const requestId = req.header('x-request-id');
    res.setHeader('X-Request-ID', requestId && UUID.test(requestId) ? requestId : randomUUID());
    next();
  });
  v1.use(express.json({ limit: '50mb', type: ['application/json', 'application/merge-patch+json'] }));
  // Bearer token with the right scope, then a well-formed X-Request-ID.
  v1.use((req: Request, res: Response, next: NextFunction) => {
    const requestId = req.header('x-request-id');
    const auth = /^Bearer (.+)$/i.exec(req.header('authorization') ?? '');
    const grant = auth ? tokens.get(auth[1]!) : undefined;
    if (!grant || grant.expiresAt <= Date.now()) {
      const code = grant ? 'TOKEN_EXPIRED' : auth ? 'TOKEN_UNKNOWN' : 'TOKEN_INVALID';
      return void reply(res, problem(401, code, 'a valid bearer token is required'));
    }
    const scope = req.method === 'GET' ? 'claims.read' : 'claims.write';
    if (!grant.scopes.has(scope))
      return void reply(res, {
        status: 403,
        body: { messages: [{ category: 'ERROR', code: 'SERVICE_BLOCKED', text: `scope ${scope} required` }] },
      });
    if (!requestId || !UUID.test(requestId))
      return void reply(res, problem(400, 'FORMAT_ERROR', 'X-Request-ID must be a UUID'));
    res.locals.clientId = grant.clientId;
    next();
  });

  /** Runs a mutating handler under TS 316 idempotency. */
  const mutation = (handler: (req: Request) => Answer) => (req: Request, res: Response) => {
    const key = req.header('x-idempotency-key');
    if (key === undefined) return void reply(res, handler(req));
    if (!UUID.test(key))
      return void reply(res, problem(400, 'FORMAT_ERROR', 'X-Idempotency-Key must be a UUID'));
    const scoped = `${String(res.locals.clientId)}:${key.toLowerCase()}`;
    const seen = idempotency.get(scoped);
    if (seen && !seen.done)
      return void reply(res, { status: 409, body: { error: 'idempotency key in flight' } });
    if (seen?.done) {
      res.setHeader('Idempotent-Replayed', 'true');
      return void reply(res, seen.answer);
    }
    idempotency.set(scoped, { done: false });
    let answer: Answer;
    try {
      answer = handler(req);
    } catch (err) {
      idempotency.delete(scoped);
      throw err;
    }
    idempotency.set(scoped, { done: true, answer });
    reply(res, answer);
  };

  v1.post(
    '/claims',
    mutation((req) => {
      if (typeof req.body !== 'object' || req.body === null || Array.isArray(req.body))
        return problem(400, 'FORMAT_ERROR', 'a createClaimDetails object is required');
      try {
        return { status: 201, body: { success: ledger.create(req.body as CreateClaimDetails) } };
      } catch (err) {
        return ruleAnswer(err);
      }
    }),
  );

  v1.get('/claims/transactions', (req: Request, res: Response) => {
    const q = req.query as Record<string, string | undefined>;
    const date = /^\d{4}-\d{2}-\d{2}$/;
    if (!q.dateFrom || !q.dateTo || !date.test(q.dateFrom) || !date.test(q.dateTo))
      return void reply(res, problem(400, 'FORMAT_ERROR', 'dateFrom and dateTo (YYYY-MM-DD) are required'));
    const list = ledger.listTransactions({
      dateFrom: q.dateFrom,
      dateTo: q.dateTo,
      ...(q.claimantId && { claimantId: q.claimantId }),
      ...(q.templateCode && { templateCode: q.templateCode }),
    });
    sendPage(req, res, list);
  });

  v1.get('/claims/:claimId', (req: Request, res: Response) => {
    const stored = ledger.find(String(req.params.claimId));
    if (!stored) return void reply(res, notFound(`no claim ${String(req.params.claimId)}`));
    reply(res, { status: 200, body: ledger.details(stored) });
  });

  v1.patch(
    '/claims/:claimId',
    mutation((req) => {
      const claimId = String(req.params.claimId);
      if (!parseClaimId(claimId)) return notFound(`no claim ${claimId}`);
      if (typeof req.body !== 'object' || req.body === null || Array.isArray(req.body))
        return problem(400, 'FORMAT_ERROR', 'a mergeClaimDetails object is required');
      try {
        const done = ledger.alter(claimId, req.body as AlterClaimBatchDetails);
        return { status: 201, body: { success: { ...done, directPaymentClaim: false } } };
      } catch (err) {
        return ruleAnswer(err);
      }
    }),
  );

  v1.get('/claims/:claimId/transactions', (req: Request, res: Response) => {
    const claimId = String(req.params.claimId);
    if (!ledger.find(claimId)) return void reply(res, notFound(`no claim ${claimId}`));
    sendPage(req, res, ledger.transactionsOf(claimId));
  });

  v1.post(
    '/batches',
    mutation((req) => {
      const body = req.body as { actionType?: unknown; createList?: unknown; alterList?: unknown } | null;
      const items =
        body?.actionType === 'create'
          ? body.createList
          : body?.actionType === 'alter'
            ? body.alterList
            : null;
      if (!Array.isArray(items) || items.length === 0)
        return problem(
          400,
          'FORMAT_ERROR',
          'actionType create with createList, or alter with alterList, is required',
        );
      if (items.length > (opts.maxBatchItems ?? 10_000))
        return problem(400, 'FORMAT_ERROR', `at most ${opts.maxBatchItems ?? 10_000} items per batch`);
      return {
        status: 201,
        body: batches.submit(body!.actionType as 'create' | 'alter', items),
      };
    }),
  );

  v1.get('/batches/:batchId', (req: Request, res: Response) => {
    const status = batches.status(String(req.params.batchId));
    if (!status) return void reply(res, notFound(`no batch ${String(req.params.batchId)}`));
    reply(res, { status: 200, body: status });
  });

  return router;
}

function reply(res: Response, answer: Answer): void {
  res.status(answer.status).json(answer.body);
}

/** Pages a list with the standard's X-Paging-* headers. */
function sendPage(req: Request, res: Response, list: ClaimTransaction[]): void {
  const page = Math.max(1, Number(req.query.page) || 1);
  const perPage = Math.min(1000, Math.max(1, Number(req.query.itemsPerPage) || 100));
  res.setHeader('X-Paging-CurrentPage', String(page));
  res.setHeader('X-Paging-TotalPages', String(Math.max(1, Math.ceil(list.length / perPage))));
  res.setHeader('X-Paging-TotalItems', String(list.length));
  res.setHeader('X-Paging-PerPage', String(perPage));
  res.status(200).json(list.slice((page - 1) * perPage, page * perPage));
}
