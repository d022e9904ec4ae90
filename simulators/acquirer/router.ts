import express, { Router, type Request, type Response } from 'express';
import { randomBase62 } from '../../domain/ids';
import type { Logger } from '../../stack/logger';
import { reportAcquirerSettlement } from '../bank/acquirer-settlement-report';
import { cardBrand, type Authorization, type DeclineCode } from '../../bank-adapters/card-acquirer';
import type { AcquirerStore, Change, StoredAuthorization } from './store';
import { DECLINES, TEST_CARDS, TOKEN_PATTERN, luhn, type Behaviour } from './test-cards';

/**
 * The simulated card acquirer's HTTP protocol (decisions 0035, 0102): tokens, authorizations,
 * capture, void, refunds, Idempotency-Key replay (`Idempotent-Replayed: true` on a replay) and a
 * 3-D Secure challenge page, driven by the documented test card numbers. Its state is the store's:
 * every change is on disk before it is answered, so any number of API and worker processes share
 * one acquirer and it survives its own restarts.
 */

export interface AcquirerRouterOptions {
  store: AcquirerStore;
  /** Added before every answer, to exercise timeouts and spinners. */
  latencyMs?: number;
  /** Where browsers reach this service (the 3-D Secure page); unset: the address the request came to. */
  publicUrl?: string | undefined;
  /**
   * The simulated bank's base URL: each capture and refund is reported there, as a real acquirer
   * settles to the merchant-of-record's account (decision 0091). Unset: nothing is reported.
   */
  bankUrl?: string | undefined;
  log?: Logger | undefined;
}

type Reply = { status: number; body: unknown };

/** A body value as text; anything but a string or number is empty. */
const str = (v: unknown): string => (typeof v === 'string' || typeof v === 'number' ? String(v) : '');

const failure = (status: number, code: string, message: string): Reply => ({
  status,
  body: { error: { code, message } },
});

function fail(res: Response, status: number, code: string, message: string) {
  res.status(status).json(failure(status, code, message).body);
}

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const view = (a: StoredAuthorization): Authorization => ({
  id: a.id,
  status: a.status,
  amount: a.amount,
  amount_captured: a.amount_captured,
  amount_refunded: a.amount_refunded,
  action_url: a.action_url,
  decline_code: a.decline_code,
});

export function simulatedAcquirerRouter(opts: AcquirerRouterOptions): Router {
  const router = Router();
  const { store } = opts;
  const latency = opts.latencyMs ?? 0;
  // Reported after the change is on disk and without waiting: a slow or absent bank must never
  // fail or delay a capture; the bank dedupes repeats by id.
  const report = (item: Parameters<typeof reportAcquirerSettlement>[1]) => {
    if (opts.bankUrl) void reportAcquirerSettlement(opts.bankUrl, item, opts.log);
  };

  router.use(express.json({ limit: '16kb' }));
  router.use(express.urlencoded({ extended: false, limit: '4kb' }));
  router.use((_req, _res, next) => {
    if (latency > 0) setTimeout(next, latency);
    else next();
  });

  /**
   * Replays the stored answer of an idempotency key, or runs `work` and stores its answer with its
   * change. `work` is synchronous: the check and the change happen in one turn of the event loop,
   * so two requests with one key cannot both do the work. A `null` answer is a transient failure
   * (not stored: a retry runs again).
   */
  async function idempotent(
    req: Request,
    res: Response,
    work: () => { reply: Reply | null; change?: Change; after?: () => void },
  ) {
    const key = req.get('idempotency-key');
    const slot = key === undefined ? undefined : `${req.path}\n${key}`;
    const stored = slot === undefined ? undefined : store.reply(slot);
    if (stored) {
      await stored.durable;
      res.setHeader('Idempotent-Replayed', 'true');
      return void res.status(stored.status).json(stored.body);
    }
    const { reply, change = {}, after } = work();
    if (reply === null) {
      if (Object.keys(change).length > 0) await store.commit(change);
      return void fail(res, 500, 'processing_error', 'A processing error occurred; retry the request');
    }
    const at = new Date().toISOString();
    const withReply: Change =
      slot !== undefined && reply.status < 500 ? { ...change, reply: { slot, ...reply, at } } : change;
    if (Object.keys(withReply).length > 0) await store.commit(withReply);
    after?.();
    res.status(reply.status).json(reply.body);
  }

  /** Express 5 passes a rejected promise to the error handler; this keeps the handlers short. */
  const handle =
    (fn: (req: Request, res: Response) => Promise<void> | void) => (req: Request, res: Response) =>
      Promise.resolve(fn(req, res));

  router.post('/v1/tokens', (req, res) => {
    const b = req.body as Record<string, unknown>;
    const number = str(b.number).replace(/\s/g, '');
    const month = Number(b.exp_month);
    const year = Number(b.exp_year);
    if (!/^\d{12,19}$/.test(number) || !luhn(number))
      return fail(res, 402, 'incorrect_number', 'The card number is incorrect');
    if (!Number.isInteger(month) || month < 1 || month > 12 || !Number.isInteger(year))
      return fail(res, 402, 'invalid_expiry', 'The expiry date is invalid');
    const now = new Date();
    if (year < now.getUTCFullYear() || (year === now.getUTCFullYear() && month < now.getUTCMonth() + 1))
      return fail(res, 402, 'expired_card', 'The card has expired');
    if (!/^\d{3,4}$/.test(str(b.cvc))) return fail(res, 402, 'invalid_cvc', 'The security code is invalid');
    const behaviour = TEST_CARDS[number] ?? 'success';
    const wallet = b.wallet === 'apple_pay' || b.wallet === 'google_pay' ? b.wallet : null;
    // Tokens are stateless (they name only the behaviour), so tokenizing needs no store.
    res.json({
      token: `tok_${behaviour}_${randomBase62(20)}`,
      brand: cardBrand(number),
      last4: number.slice(-4),
      exp_month: month,
      exp_year: year,
      wallet,
    });
  });

  router.post(
    '/v1/authorizations',
    handle((req, res) =>
      idempotent(req, res, () => {
        const b = req.body as Record<string, unknown>;
        const behaviour = TOKEN_PATTERN.exec(str(b.token))?.[1] as Behaviour | undefined;
        const amount = Number(b.amount);
        if (!behaviour || !Number.isSafeInteger(amount) || amount <= 0)
          return { reply: failure(400, 'invalid_request', 'token and amount') };
        const key = req.get('idempotency-key') ?? randomBase62(8);
        if (behaviour === 'processing_error' && !store.hasFailedOnce(key))
          return { reply: null, change: { failedOnce: { key, at: new Date().toISOString() } } };
        const decline: DeclineCode | null = DECLINES.includes(behaviour) ? (behaviour as DeclineCode) : null;
        const id = `auth_${randomBase62(20)}`;
        const base = opts.publicUrl ?? `${req.protocol}://${req.get('host')}${req.baseUrl}`;
        const auth: StoredAuthorization = {
          id,
          status: decline ? 'declined' : behaviour === 'three_d_secure' ? 'requires_action' : 'authorized',
          amount,
          amount_captured: 0,
          amount_refunded: 0,
          action_url: behaviour === 'three_d_secure' ? `${base}/3ds/${id}` : null,
          decline_code: decline,
          behaviour,
          return_url: str(b.return_url),
          created_at: new Date().toISOString(),
        };
        return { reply: { status: 200, body: view(auth) }, change: { authorizations: [auth] } };
      }),
    ),
  );

  router.get('/v1/authorizations/:id', (req, res) => {
    const auth = store.authorization(req.params.id);
    if (!auth) return fail(res, 404, 'resource_missing', 'No such authorization');
    res.json(view(auth));
  });

  router.post(
    '/v1/authorizations/:id/capture',
    handle((req, res) =>
      idempotent(req, res, () => {
        const auth = store.authorization(str(req.params.id));
        const amount = Number((req.body as { amount?: unknown }).amount);
        if (!auth) return { reply: failure(404, 'resource_missing', 'No such authorization') };
        if (
          auth.status !== 'authorized' ||
          !(Number.isSafeInteger(amount) && amount > 0 && amount <= auth.amount)
        )
          return { reply: failure(400, 'not_capturable', `status ${auth.status}`) };
        const captured: StoredAuthorization = { ...auth, status: 'captured', amount_captured: amount };
        return {
          reply: { status: 200, body: view(captured) },
          change: { authorizations: [captured] },
          after: () =>
            report({
              id: auth.id,
              kind: 'capture',
              authorization: auth.id,
              amount,
              at: new Date().toISOString(),
            }),
        };
      }),
    ),
  );

  router.post(
    '/v1/authorizations/:id/void',
    handle((req, res) =>
      idempotent(req, res, () => {
        const auth = store.authorization(str(req.params.id));
        if (!auth) return { reply: failure(404, 'resource_missing', 'No such authorization') };
        if (auth.status !== 'authorized' && auth.status !== 'requires_action')
          return { reply: { status: 200, body: view(auth) } };
        const voided: StoredAuthorization = { ...auth, status: 'voided', action_url: null };
        return { reply: { status: 200, body: view(voided) }, change: { authorizations: [voided] } };
      }),
    ),
  );

  router.post(
    '/v1/refunds',
    handle((req, res) =>
      idempotent(req, res, () => {
        const b = req.body as Record<string, unknown>;
        const auth = store.authorization(str(b.authorization));
        const amount = Number(b.amount);
        if (!auth) return { reply: failure(404, 'resource_missing', 'No such authorization') };
        if (
          auth.status !== 'captured' ||
          !(
            Number.isSafeInteger(amount) &&
            amount > 0 &&
            auth.amount_refunded + amount <= auth.amount_captured
          )
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
      }),
    ),
  );

  /** The issuer's challenge page (3-D Secure): a form that approves or fails the authentication. */
  router.get('/3ds/:id', (req, res) => {
    const auth = store.authorization(req.params.id);
    if (!auth || auth.status !== 'requires_action')
      return void res.status(404).type('text').send('Not found');
    // No form-action: the redirect chain after the form (return_url, then the merchant's
    // success_url) crosses origins this page cannot know.
    res.setHeader(
      'Content-Security-Policy',
      "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors *",
    );
    res.type('html').send(`<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>3-D Secure test challenge</title>
<style>body{font-family:system-ui,sans-serif;max-width:26rem;margin:2rem auto;padding:1rem}button{font:inherit;padding:.6rem 1rem;margin:.3rem}</style></head>
<body><h1>3-D Secure test challenge</h1><p>Simulated bank authentication of a payment of ${auth.amount} ISK.</p>
<form method="post" action="${escape(req.baseUrl)}/3ds/${escape(auth.id)}">
<button type="submit" name="outcome" value="complete">Complete authentication</button>
<button type="submit" name="outcome" value="fail">Fail authentication</button></form></body></html>`);
  });

  router.post(
    '/3ds/:id',
    handle(async (req, res) => {
      const auth = store.authorization(str(req.params.id));
      if (!auth) return void res.status(404).type('text').send('Not found');
      if (auth.status === 'requires_action') {
        const ok = (req.body as { outcome?: string }).outcome === 'complete';
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
      if (/^https?:\/\//.test(auth.return_url)) res.redirect(303, auth.return_url);
      else res.type('text').send('Done');
    }),
  );

  return router;
}
