import type { IncomingMessage, ServerResponse } from 'node:http';
import { randomBase62 } from '../../domain/ids';
import type { Logger } from '../../stack/logger';
import { reportAcquirerSettlement } from '../bank/acquirer-settlement-report';
import { cardBrand, type Authorization, type DeclineCode } from '../../adapters/acquirers/card-acquirer';
import type { AcquirerStore, Change, StoredAuthorization } from './store';
import { DECLINES, TEST_CARDS, TOKEN_PATTERN, luhn, type Behaviour } from './test-cards';
import { simulatedAcquirerFee } from '../acquirer-fees';
import { createDisputeDesk, disputeView } from './disputes';

/**
 * The simulated card acquirer's HTTP protocol (decisions 0035, 0102): tokens, authorizations,
 * capture, void, refunds, Idempotency-Key replay (`Idempotent-Replayed: true` on a replay) and a
 * 3-D Secure challenge page, driven by the documented test card numbers. Its state is the store's:
 * every change is on disk before it is answered, so any number of API and worker processes share
 * one acquirer and it survives its own restarts. A plain node:http handler: a renewal day sends two
 * requests per subscription, and a framework's routing, body parsing and ETags would cost more CPU
 * than the work itself.
 */

export interface AcquirerProtocolOptions {
  store: AcquirerStore;
  /** Added before every answer, to exercise timeouts and spinners. */
  latencyMs?: number;
  /** Where browsers reach this service: the 3-D Secure pages' base URL. */
  publicUrl: string;
  /**
   * The simulated bank's base URL: each capture and refund is reported there, as a real acquirer
   * settles to the merchant-of-record's account (decision 0091). Unset: nothing is reported.
   */
  bankUrl?: string | undefined;
  /** Where dispute notifications are posted (decision 0155); unset: none are sent. */
  notifyUrl?: string | (() => string | undefined) | undefined;
  /** The secret notifications are signed with, shared with the merchant. */
  notificationSecret?: string | undefined;
  log?: Logger | undefined;
}

type Reply = { status: number; body: unknown };
type Body = Record<string, unknown>;
/** What a protocol operation decides, synchronously: its answer, its change, and what follows it. */
type Outcome = { reply: Reply | null; change?: Change; after?: () => void };

const MAX_BODY_BYTES = 16 * 1024;

/** A body value as text; anything but a string or number is empty. */
const str = (v: unknown): string => (typeof v === 'string' || typeof v === 'number' ? String(v) : '');

const failure = (status: number, code: string, message: string): Reply => ({
  status,
  body: { error: { code, message } },
});

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const view = (a: StoredAuthorization): Authorization => ({
  id: a.id,
  status: a.status,
  amount: a.amount,
  amount_captured: a.amount_captured,
  amount_refunded: a.amount_refunded,
  action_url: a.action_url,
  decline_code: a.decline_code,
  fee: a.fee ?? null,
});

function send(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

function sendText(res: ServerResponse, status: number, type: string, text: string, headers = {}): void {
  res.writeHead(status, { 'content-type': `${type}; charset=utf-8`, ...headers });
  res.end(text);
}

class BodyError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** The request body as an object: JSON, or a form (the 3-D Secure page posts one). */
async function readBody(req: IncomingMessage): Promise<Body> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new BodyError(413, 'The request body is too large');
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text === '') return {};
  const type = req.headers['content-type'] ?? '';
  if (type.startsWith('application/x-www-form-urlencoded'))
    return Object.fromEntries(new URLSearchParams(text));
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new BodyError(400, 'The body is not valid JSON');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new BodyError(400, 'The body must be a JSON object');
  return parsed as Body;
}

export function createAcquirerHandler(
  opts: AcquirerProtocolOptions,
): (req: IncomingMessage, res: ServerResponse) => void {
  const { store } = opts;
  const latency = opts.latencyMs ?? 0;
  // Reported after the change is on disk and without waiting: a slow or absent bank must never
  // fail or delay a capture; the bank dedupes repeats by id.
  const report = (item: Parameters<typeof reportAcquirerSettlement>[1]) => {
    if (opts.bankUrl) void reportAcquirerSettlement(opts.bankUrl, item, opts.log);
  };
  const disputes = createDisputeDesk({
    store,
    notifyUrl: opts.notifyUrl,
    notificationSecret: opts.notificationSecret,
    log: opts.log,
  });

  /**
   * Replays the stored answer of an idempotency key, or runs `work` and stores its answer with its
   * change. `work` is synchronous: the check and the change happen in one turn of the event loop,
   * so two requests with one key cannot both do the work. A `null` answer is a transient failure
   * (not stored: a retry runs again).
   */
  async function idempotent(
    path: string,
    key: string | undefined,
    res: ServerResponse,
    work: () => Outcome,
  ): Promise<void> {
    const slot = key === undefined ? undefined : `${path}\n${key}`;
    const stored = slot === undefined ? undefined : store.reply(slot);
    if (stored) {
      await stored.durable;
      return send(res, stored.status, stored.body, { 'idempotent-replayed': 'true' });
    }
    const { reply, change = {}, after } = work();
    if (reply === null) {
      if (Object.keys(change).length > 0) await store.commit(change);
      const r = failure(500, 'processing_error', 'A processing error occurred; retry the request');
      return send(res, r.status, r.body);
    }
    const withReply: Change =
      slot !== undefined && reply.status < 500
        ? { ...change, reply: { slot, ...reply, at: new Date().toISOString() } }
        : change;
    if (Object.keys(withReply).length > 0) await store.commit(withReply);
    after?.();
    send(res, reply.status, reply.body);
  }

  function tokenize(b: Body): Reply {
    const number = str(b.number).replace(/\s/g, '');
    const month = Number(b.exp_month);
    const year = Number(b.exp_year);
    if (!/^\d{12,19}$/.test(number) || !luhn(number))
      return failure(402, 'incorrect_number', 'The card number is incorrect');
    if (!Number.isInteger(month) || month < 1 || month > 12 || !Number.isInteger(year))
      return failure(402, 'invalid_expiry', 'The expiry date is invalid');
    const now = new Date();
    if (year < now.getUTCFullYear() || (year === now.getUTCFullYear() && month < now.getUTCMonth() + 1))
      return failure(402, 'expired_card', 'The card has expired');
    if (!/^\d{3,4}$/.test(str(b.cvc))) return failure(402, 'invalid_cvc', 'The security code is invalid');
    const behaviour = TEST_CARDS[number] ?? 'success';
    const wallet = b.wallet === 'apple_pay' || b.wallet === 'google_pay' ? b.wallet : null;
    // Tokens are stateless (they name only the behaviour), so tokenizing needs no store.
    return {
      status: 200,
      body: {
        token: `tok_${behaviour}_${randomBase62(20)}`,
        brand: cardBrand(number),
        last4: number.slice(-4),
        exp_month: month,
        exp_year: year,
        wallet,
      },
    };
  }

  function authorize(b: Body, key: string | undefined): Outcome {
    const behaviour = TOKEN_PATTERN.exec(str(b.token))?.[1] as Behaviour | undefined;
    const amount = Number(b.amount);
    if (!behaviour || !Number.isSafeInteger(amount) || amount <= 0)
      return { reply: failure(400, 'invalid_request', 'token and amount') };
    const attempt = key ?? randomBase62(8);
    if (behaviour === 'processing_error' && !store.hasFailedOnce(attempt))
      return { reply: null, change: { failedOnce: { key: attempt, at: new Date().toISOString() } } };
    const decline: DeclineCode | null = DECLINES.includes(behaviour) ? (behaviour as DeclineCode) : null;
    const id = `auth_${randomBase62(20)}`;
    const auth: StoredAuthorization = {
      id,
      status: decline ? 'declined' : behaviour === 'three_d_secure' ? 'requires_action' : 'authorized',
      amount,
      amount_captured: 0,
      amount_refunded: 0,
      action_url: behaviour === 'three_d_secure' ? `${opts.publicUrl}/3ds/${id}` : null,
      decline_code: decline,
      behaviour,
      return_url: str(b.return_url),
      created_at: new Date().toISOString(),
    };
    return { reply: { status: 200, body: view(auth) }, change: { authorizations: [auth] } };
  }

  function capture(id: string, b: Body): Outcome {
    const auth = store.authorization(id);
    const amount = Number(b.amount);
    if (!auth) return { reply: failure(404, 'resource_missing', 'No such authorization') };
    if (
      auth.status !== 'authorized' ||
      !(Number.isSafeInteger(amount) && amount > 0 && amount <= auth.amount)
    )
      return { reply: failure(400, 'not_capturable', `status ${auth.status}`) };
    // The documented test fee on the capture, a cost Skil adds on top (decision 0113).
    const captured: StoredAuthorization = {
      ...auth,
      status: 'captured',
      amount_captured: amount,
      fee: simulatedAcquirerFee(amount),
    };
    // A dispute test card's capture is disputed at once (decision 0155), in the same change.
    const dispute = disputes.openOnCapture(auth, amount);
    return {
      reply: { status: 200, body: view(captured) },
      change: { authorizations: [captured], ...(dispute && { disputes: [dispute] }) },
      after: () => {
        report({
          id: auth.id,
          kind: 'capture',
          authorization: auth.id,
          amount,
          at: new Date().toISOString(),
        });
        if (dispute) disputes.notifyLater(dispute)();
      },
    };
  }

  function voidAuthorization(id: string): Outcome {
    const auth = store.authorization(id);
    if (!auth) return { reply: failure(404, 'resource_missing', 'No such authorization') };
    if (auth.status !== 'authorized' && auth.status !== 'requires_action')
      return { reply: { status: 200, body: view(auth) } };
    const voided: StoredAuthorization = { ...auth, status: 'voided', action_url: null };
    return { reply: { status: 200, body: view(voided) }, change: { authorizations: [voided] } };
  }

  function refund(b: Body): Outcome {
    const auth = store.authorization(str(b.authorization));
    const amount = Number(b.amount);
    if (!auth) return { reply: failure(404, 'resource_missing', 'No such authorization') };
    if (
      auth.status !== 'captured' ||
      !(Number.isSafeInteger(amount) && amount > 0 && auth.amount_refunded + amount <= auth.amount_captured)
    )
      return { reply: failure(400, 'refund_exceeds', 'Cannot refund that much') };
    const refunded: StoredAuthorization = { ...auth, amount_refunded: auth.amount_refunded + amount };
    const id = `rf_${randomBase62(20)}`;
    const at = new Date().toISOString();
    return {
      reply: { status: 200, body: { id, authorization: auth.id, amount } },
      change: {
        authorizations: [refunded],
        refunds: [{ id, authorization: auth.id, amount, created_at: at }],
      },
      after: () => report({ id, kind: 'refund', authorization: auth.id, amount, at }),
    };
  }

  /** The issuer's challenge page (3-D Secure): a form that approves or fails the authentication. */
  function challengePage(res: ServerResponse, id: string): void {
    const auth = store.authorization(id);
    if (!auth || auth.status !== 'requires_action') return sendText(res, 404, 'text/plain', 'Not found');
    // No form-action: the redirect chain after the form (return_url, then the merchant's
    // success_url) crosses origins this page cannot know.
    sendText(
      res,
      200,
      'text/html',
      `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>3-D Secure test challenge</title>
<style>body{font-family:system-ui,sans-serif;max-width:26rem;margin:2rem auto;padding:1rem}button{font:inherit;padding:.6rem 1rem;margin:.3rem}</style></head>
<body><h1>3-D Secure test challenge</h1><p>Simulated bank authentication of a payment of ${auth.amount} ISK.</p>
<form method="post" action="/3ds/${escape(auth.id)}">
<button type="submit" name="outcome" value="complete">Complete authentication</button>
<button type="submit" name="outcome" value="fail">Fail authentication</button></form></body></html>`,
      { 'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors *" },
    );
  }

  async function completeChallenge(res: ServerResponse, id: string, b: Body): Promise<void> {
    const auth = store.authorization(id);
    if (!auth) return sendText(res, 404, 'text/plain', 'Not found');
    if (auth.status === 'requires_action') {
      const ok = b.outcome === 'complete';
      await store.commit({
        authorizations: [
          {
            ...auth,
            status: ok ? 'authorized' : 'declined',
            decline_code: ok ? null : 'authentication_failed',
            action_url: null,
          },
        ],
      });
    }
    if (/^https?:\/\//.test(auth.return_url)) {
      res.writeHead(303, { location: auth.return_url, 'content-length': 0 });
      return void res.end();
    }
    sendText(res, 200, 'text/plain', 'Done');
  }

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0]!;
    const method = req.method ?? 'GET';
    const header = req.headers['idempotency-key'];
    const key = typeof header === 'string' ? header : undefined;
    const segments = path.split('/').map((s) => decodeURIComponent(s));
    if (method === 'GET') {
      if (path === '/health') return send(res, 200, { status: 'ok' });
      if (segments.length === 4 && segments[1] === 'v1' && segments[2] === 'authorizations') {
        const auth = store.authorization(segments[3]!);
        if (!auth) return send(res, 404, failure(404, 'resource_missing', 'No such authorization').body);
        return send(res, 200, view(auth));
      }
      if (segments.length === 3 && segments[1] === '3ds') return challengePage(res, segments[2]!);
      if (segments.length === 4 && segments[1] === 'v1' && segments[2] === 'disputes') {
        const d = store.dispute(segments[3]!);
        if (!d) return send(res, 404, failure(404, 'resource_missing', 'No such dispute').body);
        return send(res, 200, disputeView(d));
      }
      if (path === '/v1/test_helpers/disputes')
        return send(res, 200, { object: 'list', data: store.allDisputes().map(disputeView) });
    } else if (method === 'POST') {
      const b = await readBody(req);
      if (path === '/v1/tokens') {
        const r = tokenize(b);
        return send(res, r.status, r.body);
      }
      if (path === '/v1/authorizations') return idempotent(path, key, res, () => authorize(b, key));
      if (path === '/v1/refunds') return idempotent(path, key, res, () => refund(b));
      if (segments.length === 5 && segments[1] === 'v1' && segments[2] === 'authorizations') {
        const id = segments[3]!;
        if (segments[4] === 'capture') return idempotent(path, key, res, () => capture(id, b));
        if (segments[4] === 'void') return idempotent(path, key, res, () => voidAuthorization(id));
      }
      if (segments.length === 3 && segments[1] === '3ds') return completeChallenge(res, segments[2]!, b);
      if (segments.length === 5 && segments[1] === 'v1' && segments[2] === 'disputes') {
        const id = segments[3]!;
        if (segments[4] === 'evidence')
          return idempotent(path, key, res, () => disputes.submitEvidence(id, b));
        if (segments[4] === 'accept') return idempotent(path, key, res, () => disputes.accept(id));
      }
      if (segments.length === 6 && segments[2] === 'test_helpers' && segments[3] === 'disputes') {
        const id = segments[4]!;
        if (segments[5] === 'resolve') return idempotent(path, key, res, () => disputes.resolve(id, b));
        if (segments[5] === 'notify') {
          const r = await disputes.redeliver(id, b);
          return send(res, r.status, r.body);
        }
      }
    }
    send(res, 404, failure(404, 'not_found', `No route ${method} ${path}`).body);
  }

  return (req, res) => {
    const run = () =>
      route(req, res).catch((err: unknown) => {
        if (res.headersSent) return void res.destroy();
        if (err instanceof BodyError)
          return send(res, err.status, failure(err.status, 'invalid_request', err.message).body);
        if (err instanceof URIError) return send(res, 404, failure(404, 'not_found', 'No such path').body);
        opts.log?.error({ err }, 'simulated acquirer: request failed');
        send(res, 500, failure(500, 'api_error', 'The acquirer failed').body);
      });
    if (latency > 0) setTimeout(run, latency);
    else void run();
  };
}
