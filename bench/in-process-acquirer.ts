import { appendFileSync } from 'node:fs';
import { randomBase62 } from '../domain/ids';
import {
  AcquirerSignatureError,
  AcquirerCardError,
  AcquirerInvalidRequestError,
  AcquirerUnavailableError,
  cardBrand,
  type AcquirerRefund,
  type Authorization,
  type AuthorizeRequest,
  type CaptureRequest,
  type CardAcquirer,
  type CardToken,
  type DeclineCode,
  type RefundRequest,
  type TokenizeRequest,
} from '../adapters/acquirers/card-acquirer';
import { DECLINES, TEST_CARDS, TOKEN_PATTERN, type Behaviour } from '../simulators/acquirer/test-cards';
import { reportAcquirerSettlement } from '../simulators/bank/acquirer-settlement-report';
import { simulatedAcquirerFee } from '../simulators/acquirer-fees';
import type { Logger } from '../stack/logger';

/**
 * A map that forgets its oldest entries beyond `capacity`: the acquirer's recent authorizations.
 * A real acquirer keeps every authorization in its own database; in the worker's heap they would be
 * the benchmark's memory, not Skil's (decision 0189).
 */
class RecentMap<V> extends Map<string, V> {
  constructor(private readonly capacity: number) {
    super();
  }
  override set(key: string, value: V): this {
    super.set(key, value);
    if (this.size > this.capacity) this.delete(this.keys().next().value!);
    return this;
  }
}

/**
 * The captures and refunds an in-process acquirer made, one line each (`capture <authorization>
 * <idempotency key> <amount>`), appended to a file outside the heap: the acquirer's own journal, which
 * the benchmark reads to check every charge against the payment intents (exactly once, same total).
 */
function createJournal(file: string | undefined) {
  let pending: string[] = [];
  const flush = () => {
    if (!file || pending.length === 0) return;
    appendFileSync(file, pending.join(''));
    pending = [];
  };
  if (file) {
    setInterval(flush, 100).unref();
    process.once('exit', flush);
  }
  return {
    record(kind: 'capture' | 'refund', authorization: string, key: string, amount: number) {
      if (!file) return;
      pending.push(`${kind} ${authorization} ${key} ${amount}\n`);
      if (pending.length >= 1000) flush();
    },
  };
}

/**
 * For the renewal-day benchmark only (decision 0102): the simulated acquirer's test-card behaviour
 * as a `CardAcquirer` inside the worker process, so the benchmark measures Skil's batch renewals
 * without an HTTP hop per authorization. It remembers the last `window` authorizations (a page's
 * charge captures what it authorized moments before) and journals its captures to `journalFile`
 * (decision 0189). Its authorizations exist only in that process: nothing else can capture them.
 */
export function createInProcessAcquirer(
  opts: {
    latencyMs?: number;
    /** The simulated bank's base URL, told of each capture and refund (decision 0091); unset: none. */
    bankUrl?: string | undefined;
    log?: Logger;
    /** Authorizations remembered (and idempotency keys replayed); default 20,000. */
    window?: number;
    /** Where captures and refunds are journaled; unset: nowhere. */
    journalFile?: string | undefined;
  } = {},
): CardAcquirer {
  const auths = new RecentMap<Authorization>(opts.window ?? 20_000);
  const byKey = new RecentMap<Authorization>(opts.window ?? 20_000);
  const journal = createJournal(opts.journalFile);
  const failedOnce = new Set<string>();
  const latency = opts.latencyMs ?? 0;
  const wait = () => (latency > 0 ? new Promise((r) => setTimeout(r, latency)) : Promise.resolve());
  const copy = (a: Authorization): Authorization => ({ ...a });
  // Not awaited: a capture stands whether or not the bank heard of it (failures are logged).
  const report = (item: Parameters<typeof reportAcquirerSettlement>[1]) => {
    if (opts.bankUrl) void reportAcquirerSettlement(opts.bankUrl, item, opts.log);
  };
  const find = (id: string) => {
    const a = auths.get(id);
    if (!a) throw new AcquirerInvalidRequestError('No such authorization', 'resource_missing', false, 404);
    return a;
  };

  return {
    async tokenize(req: TokenizeRequest): Promise<CardToken> {
      await wait();
      const number = req.number.replace(/\s/g, '');
      if (!/^\d{12,19}$/.test(number))
        throw new AcquirerCardError('The card number is incorrect', 'incorrect_number', false, 402);
      const behaviour = TEST_CARDS[number] ?? 'success';
      return {
        token: `tok_${behaviour}_${randomBase62(20)}`,
        brand: cardBrand(number),
        last4: number.slice(-4),
        exp_month: req.exp_month,
        exp_year: req.exp_year,
        wallet: req.wallet ?? null,
      };
    },

    async authorize(req: AuthorizeRequest): Promise<Authorization> {
      await wait();
      const replay = byKey.get(req.idempotency_key);
      if (replay) return copy(replay);
      const behaviour = TOKEN_PATTERN.exec(req.token)?.[1] as Behaviour | undefined;
      if (!behaviour || !Number.isSafeInteger(req.amount) || req.amount <= 0)
        throw new AcquirerInvalidRequestError('token and amount', 'invalid_request', false, 400);
      if (behaviour === 'processing_error' && !failedOnce.has(req.idempotency_key)) {
        failedOnce.add(req.idempotency_key);
        throw new AcquirerUnavailableError('A processing error occurred', 'processing_error', true, 500);
      }
      const decline = DECLINES.includes(behaviour) ? (behaviour as DeclineCode) : null;
      const auth: Authorization = {
        id: `auth_${randomBase62(20)}`,
        status: decline ? 'declined' : behaviour === 'three_d_secure' ? 'requires_action' : 'authorized',
        amount: req.amount,
        amount_captured: 0,
        amount_refunded: 0,
        action_url: null,
        decline_code: decline,
        fee: null,
      };
      auths.set(auth.id, auth);
      byKey.set(req.idempotency_key, auth);
      return copy(auth);
    },

    async retrieve(authorization: string): Promise<Authorization> {
      await wait();
      return copy(find(authorization));
    },

    async capture(req: CaptureRequest): Promise<Authorization> {
      await wait();
      const auth = find(req.authorization);
      if (auth.status === 'captured') return copy(auth);
      if (auth.status !== 'authorized' || req.amount <= 0 || req.amount > auth.amount)
        throw new AcquirerInvalidRequestError(`status ${auth.status}`, 'not_capturable', false, 400);
      auth.status = 'captured';
      auth.amount_captured = req.amount;
      auth.fee = simulatedAcquirerFee(req.amount);
      journal.record('capture', auth.id, req.idempotency_key, req.amount);
      report({
        id: auth.id,
        kind: 'capture',
        authorization: auth.id,
        amount: req.amount,
        at: new Date().toISOString(),
      });
      return copy(auth);
    },

    async void(authorization: string): Promise<Authorization> {
      await wait();
      const auth = find(authorization);
      if (auth.status === 'authorized' || auth.status === 'requires_action') auth.status = 'voided';
      return copy(auth);
    },

    async refund(req: RefundRequest): Promise<AcquirerRefund> {
      await wait();
      const auth = find(req.authorization);
      if (req.amount <= 0 || auth.amount_refunded + req.amount > auth.amount_captured)
        throw new AcquirerInvalidRequestError('refund exceeds capture', 'amount_too_large', false, 400);
      auth.amount_refunded += req.amount;
      const id = `re_${randomBase62(20)}`;
      journal.record('refund', auth.id, req.idempotency_key, req.amount);
      report({
        id,
        kind: 'refund',
        authorization: auth.id,
        amount: req.amount,
        at: new Date().toISOString(),
      });
      return { id, authorization: auth.id, amount: req.amount };
    },

    // The benchmark's renewals open no disputes (decision 0155): there is none to answer.
    submitDisputeEvidence(): Promise<never> {
      return Promise.reject(
        new AcquirerInvalidRequestError('No such dispute', 'resource_missing', false, 404),
      );
    },
    acceptDispute(): Promise<never> {
      return Promise.reject(
        new AcquirerInvalidRequestError('No such dispute', 'resource_missing', false, 404),
      );
    },
    parseNotification(): never {
      throw new AcquirerSignatureError(
        'The in-process acquirer sends no notifications',
        'no_secret',
        false,
        401,
      );
    },
  };
}
