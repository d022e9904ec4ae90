import express, { Router, type Request, type Response } from 'express';
import { randomBase62 } from '../domain/ids';
import type { Logger } from '../stack/logger';
import { reportAcquirerSettlement } from './bank/acquirer-settlement-report';
import { cardBrand, type Authorization, type DeclineCode } from '../bank-adapters/card-acquirer';
import { simulatedAcquirerFee } from './acquirer-fees';

/**
 * The simulated card acquirer of the test environment: a small HTTP service with the shape of a
 * real acquirer API (tokens, authorizations, capture, void, refunds, Idempotency-Key replay and a
 * 3-D Secure challenge page), driven by the documented test card numbers. State lives in memory:
 * it is a test double of an external system, not a store of Skil's records.
 */

type Behaviour =
  | 'success'
  | 'generic_decline'
  | 'insufficient_funds'
  | 'expired_card'
  | 'incorrect_cvc'
  | 'processing_error'
  | 'three_d_secure';

/** The documented test cards (README, "Test cards"). */
export const TEST_CARDS: Record<string, Behaviour> = {
  '4242424242424242': 'success',
  '5555555555554444': 'success',
  '4000000000000002': 'generic_decline',
  '4000000000009995': 'insufficient_funds',
  '4000000000000069': 'expired_card',
  '4000000000000127': 'incorrect_cvc',
  '4000000000000119': 'processing_error',
  '4000000000003220': 'three_d_secure',
};

interface SimAuthorization extends Authorization {
  behaviour: Behaviour;
  return_url: string;
}

export interface SimulatedAcquirerOptions {
  /** Added before every answer, to exercise timeouts and spinners. */
  latencyMs?: number;
  /**
   * The simulated bank's base URL: each capture and refund is reported there, as a real acquirer
   * settles to the merchant-of-record's account (decision 0091). Unset: nothing is reported.
   */
  bankUrl?: string | undefined;
  /** Where failed reports are logged. */
  log?: Logger;
}

function luhn(number: string): boolean {
  let sum = 0;
  for (let i = 0; i < number.length; i++) {
    let d = Number(number[number.length - 1 - i]);
    if (i % 2 === 1) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  }
  return sum % 10 === 0;
}

/** A body value as text; anything but a string or number is empty. */
const str = (v: unknown): string => (typeof v === 'string' || typeof v === 'number' ? String(v) : '');

function fail(res: Response, status: number, code: string, message: string) {
  res.status(status).json({ error: { code, message } });
}

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function simulatedAcquirerRouter(opts: SimulatedAcquirerOptions = {}): Router {
  const router = Router();
  const auths = new Map<string, SimAuthorization>();
  const replies = new Map<string, { status: number; body: unknown }>();
  const failedOnce = new Set<string>();
  const latency = opts.latencyMs ?? 0;
  // Reported after the answer is decided and without waiting: a slow or absent bank must never
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

  const view = (a: SimAuthorization): Authorization => ({
    id: a.id,
    status: a.status,
    amount: a.amount,
    amount_captured: a.amount_captured,
    amount_refunded: a.amount_refunded,
    action_url: a.action_url,
    decline_code: a.decline_code,
    fee: a.fee ?? null,
  });

  /** Replays the stored answer of an idempotency key, or runs `work` and stores its answer. */
  function idempotent(req: Request, res: Response, work: () => { status: number; body: unknown } | null) {
    const key = req.get('idempotency-key');
    const slot = key === undefined ? undefined : `${req.path}\n${key}`;
    const stored = slot === undefined ? undefined : replies.get(slot);
    if (stored) return res.status(stored.status).json(stored.body);
    const reply = work();
    if (reply === null) return; // a transient failure: not stored, so a retry runs again
    if (slot !== undefined && reply.status < 500) replies.set(slot, reply);
    res.status(reply.status).json(reply.body);
  }

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
    res.json({
      token: `tok_${behaviour}_${randomBase62(20)}`,
      brand: cardBrand(number),
      last4: number.slice(-4),
      exp_month: month,
      exp_year: year,
      wallet,
    });
  });

  router.post('/v1/authorizations', (req, res) => {
    idempotent(req, res, () => {
      const b = req.body as Record<string, unknown>;
      const token = str(b.token);
      const match = /^tok_([a-z_]+)_[0-9A-Za-z]{20}$/.exec(token);
      const behaviour = match?.[1] as Behaviour | undefined;
      const amount = Number(b.amount);
      if (!behaviour || !Number.isSafeInteger(amount) || amount <= 0)
        return { status: 400, body: { error: { code: 'invalid_request', message: 'token and amount' } } };
      const key = req.get('idempotency-key') ?? randomBase62(8);
      if (behaviour === 'processing_error' && !failedOnce.has(key)) {
        failedOnce.add(key);
        fail(res, 500, 'processing_error', 'A processing error occurred; retry the request');
        return null;
      }
      const decline: DeclineCode | null =
        behaviour === 'generic_decline' ||
        behaviour === 'insufficient_funds' ||
        behaviour === 'expired_card' ||
        behaviour === 'incorrect_cvc'
          ? behaviour
          : null;
      const id = `auth_${randomBase62(20)}`;
      const base = `${req.protocol}://${req.get('host')}${req.baseUrl}`;
      const auth: SimAuthorization = {
        id,
        status: decline ? 'declined' : behaviour === 'three_d_secure' ? 'requires_action' : 'authorized',
        amount,
        amount_captured: 0,
        amount_refunded: 0,
        action_url: behaviour === 'three_d_secure' ? `${base}/3ds/${id}` : null,
        decline_code: decline,
        behaviour,
        return_url: str(b.return_url),
      };
      auths.set(id, auth);
      return { status: 200, body: view(auth) };
    });
  });

  router.get('/v1/authorizations/:id', (req, res) => {
    const auth = auths.get(req.params.id);
    if (!auth) return fail(res, 404, 'resource_missing', 'No such authorization');
    res.json(view(auth));
  });

  router.post('/v1/authorizations/:id/capture', (req, res) => {
    idempotent(req, res, () => {
      const auth = auths.get(req.params.id);
      const amount = Number((req.body as { amount?: unknown }).amount);
      if (!auth)
        return { status: 404, body: { error: { code: 'resource_missing', message: 'No such auth' } } };
      if (auth.status !== 'authorized' || !(amount > 0 && amount <= auth.amount))
        return { status: 400, body: { error: { code: 'not_capturable', message: `status ${auth.status}` } } };
      auth.status = 'captured';
      auth.amount_captured = amount;
      auth.fee = simulatedAcquirerFee(amount);
      report({ id: auth.id, kind: 'capture', authorization: auth.id, amount, at: new Date().toISOString() });
      return { status: 200, body: view(auth) };
    });
  });

  router.post('/v1/authorizations/:id/void', (req, res) => {
    idempotent(req, res, () => {
      const auth = auths.get(req.params.id);
      if (!auth)
        return { status: 404, body: { error: { code: 'resource_missing', message: 'No such auth' } } };
      if (auth.status === 'authorized' || auth.status === 'requires_action') auth.status = 'voided';
      return { status: 200, body: view(auth) };
    });
  });

  router.post('/v1/refunds', (req, res) => {
    idempotent(req, res, () => {
      const b = req.body as Record<string, unknown>;
      const auth = auths.get(String(b.authorization));
      const amount = Number(b.amount);
      if (!auth)
        return { status: 404, body: { error: { code: 'resource_missing', message: 'No such auth' } } };
      if (
        auth.status !== 'captured' ||
        !(amount > 0 && auth.amount_refunded + amount <= auth.amount_captured)
      )
        return {
          status: 400,
          body: { error: { code: 'refund_exceeds', message: 'Cannot refund that much' } },
        };
      auth.amount_refunded += amount;
      const id = `rf_${randomBase62(20)}`;
      report({ id, kind: 'refund', authorization: auth.id, amount, at: new Date().toISOString() });
      return { status: 200, body: { id, authorization: auth.id, amount } };
    });
  });

  /** The issuer's challenge page (3-D Secure): a form that approves or fails the authentication. */
  router.get('/3ds/:id', (req, res) => {
    const auth = auths.get(req.params.id);
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

  router.post('/3ds/:id', (req, res) => {
    const auth = auths.get(req.params.id);
    if (!auth) return void res.status(404).type('text').send('Not found');
    if (auth.status === 'requires_action') {
      const ok = (req.body as { outcome?: string }).outcome === 'complete';
      auth.status = ok ? 'authorized' : 'declined';
      auth.decline_code = ok ? null : 'authentication_failed';
      auth.action_url = null;
    }
    if (/^https?:\/\//.test(auth.return_url)) res.redirect(303, auth.return_url);
    else res.type('text').send('Done');
  });

  return router;
}
