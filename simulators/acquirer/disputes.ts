import { randomBase62 } from '../../domain/ids';
import type { Logger } from '../../stack/logger';
import type { AcquirerDispute, DisputeNotification } from '../../adapters/acquirers/card-acquirer';
import {
  NOTIFICATION_SIGNATURE_HEADER,
  signNotification,
} from '../../adapters/acquirers/acquirer-notifications';
import type { AcquirerStore, Change, StoredAuthorization, StoredDispute } from './store';
import { DISPUTED, DISPUTE_RESPONSE_DAYS } from './test-cards';

/**
 * The simulated acquirer's disputes (decision 0155): the dispute test cards' captures are disputed
 * at once; the merchant answers with evidence or accepts; the acquirer (a test helper standing for
 * the cardholder's bank) decides won or lost. Every change is told to the merchant as a signed
 * notification posted to its notification URL, retried a few times, as acquirers deliver
 * notifications at least once: Skil dedupes by the dispute's id.
 */

type Reply = { status: number; body: unknown };
type Outcome = { reply: Reply; change?: Change; after?: () => void };

export interface DisputeDeskOptions {
  store: AcquirerStore;
  /** Where notifications go; a function when the merchant's address is known only later (tests). */
  notifyUrl?: string | (() => string | undefined) | undefined;
  notificationSecret?: string | undefined;
  log?: Logger | undefined;
}

const DAY = 86_400_000;
const ATTEMPTS = 4;

const failure = (status: number, code: string, message: string): Reply => ({
  status,
  body: { error: { code, message } },
});

/** The dispute as the acquirer's API shows it. */
export function disputeView(d: StoredDispute): AcquirerDispute & { evidence: StoredDispute['evidence'] } {
  return {
    id: d.id,
    authorization: d.authorization,
    amount: d.amount,
    reason: d.reason,
    status: d.status,
    evidence_due_by: d.evidence_due_by,
    created_at: d.created_at,
    evidence: d.evidence,
  };
}

function withNotification(
  d: Omit<StoredDispute, 'notification'>,
  type: DisputeNotification['type'],
): StoredDispute {
  const note: DisputeNotification = {
    id: `ntf_${randomBase62(20)}`,
    type,
    dispute: {
      id: d.id,
      authorization: d.authorization,
      amount: d.amount,
      reason: d.reason,
      status: d.status,
      evidence_due_by: d.evidence_due_by,
      created_at: d.created_at,
    },
  };
  return { ...d, notification: JSON.stringify(note) };
}

export function createDisputeDesk(opts: DisputeDeskOptions) {
  const { store } = opts;

  /** Posts one copy of the dispute's latest notification; true when the merchant took it (2xx). */
  async function postOnce(url: string, text: string): Promise<boolean> {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (opts.notificationSecret !== undefined)
      headers[NOTIFICATION_SIGNATURE_HEADER] = signNotification(opts.notificationSecret, text);
    try {
      const res = await fetch(url, {
        method: 'POST',
        headers,
        body: text,
        signal: AbortSignal.timeout(10_000),
      });
      await res.arrayBuffer();
      return res.ok;
    } catch {
      return false;
    }
  }

  /** Delivers the notification, retrying a refused or failed delivery; whether it was taken. */
  async function deliver(d: StoredDispute): Promise<boolean> {
    const url = typeof opts.notifyUrl === 'function' ? opts.notifyUrl() : opts.notifyUrl;
    if (url === undefined) return false;
    for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
      if (await postOnce(url, d.notification)) return true;
      if (attempt < ATTEMPTS) await new Promise((r) => setTimeout(r, 100 * 2 ** attempt));
    }
    opts.log?.warn({ dispute: d.id }, 'simulated acquirer: dispute notification not delivered');
    return false;
  }

  const notifyLater = (d: StoredDispute) => () => void deliver(d);

  return {
    /** The dispute a capture of a dispute test card opens, or null for any other card. */
    openOnCapture(auth: StoredAuthorization, amount: number): StoredDispute | null {
      if (!DISPUTED.includes(auth.behaviour)) return null;
      const now = Date.now();
      const due = auth.behaviour === 'dispute_past_due' ? now - 60_000 : now + DISPUTE_RESPONSE_DAYS * DAY;
      return withNotification(
        {
          id: `chb_${randomBase62(20)}`,
          authorization: auth.id,
          amount,
          reason: 'fraudulent',
          status: 'needs_response',
          evidence_due_by: new Date(due).toISOString(),
          created_at: new Date(now).toISOString(),
          evidence: null,
        },
        'dispute.created',
      );
    },

    notifyLater,

    /** The merchant's evidence: the dispute goes under review, until its deadline only. */
    submitEvidence(id: string, body: Record<string, unknown>): Outcome {
      const d = store.dispute(id);
      if (!d) return { reply: failure(404, 'resource_missing', 'No such dispute') };
      const evidence = body.evidence;
      if (
        evidence === null ||
        typeof evidence !== 'object' ||
        Array.isArray(evidence) ||
        !Object.values(evidence).every((v) => typeof v === 'string')
      )
        return { reply: failure(400, 'invalid_request', 'evidence must be an object of text fields') };
      if (d.status !== 'needs_response')
        return { reply: failure(400, 'dispute_not_open', `The dispute is ${d.status}`) };
      if (Date.parse(d.evidence_due_by) < Date.now())
        return { reply: failure(400, 'evidence_past_due', 'The evidence deadline has passed') };
      const next = withNotification(
        { ...d, status: 'under_review', evidence: evidence as Record<string, string> },
        'dispute.updated',
      );
      return {
        reply: { status: 200, body: disputeView(next) },
        change: { disputes: [next] },
        after: notifyLater(next),
      };
    },

    /** The merchant accepts the dispute: lost, the money stays with the cardholder. */
    accept(id: string): Outcome {
      const d = store.dispute(id);
      if (!d) return { reply: failure(404, 'resource_missing', 'No such dispute') };
      if (d.status === 'lost') return { reply: { status: 200, body: disputeView(d) } };
      if (d.status !== 'needs_response')
        return { reply: failure(400, 'dispute_not_open', `The dispute is ${d.status}`) };
      const next = withNotification({ ...d, status: 'lost' }, 'dispute.closed');
      return {
        reply: { status: 200, body: disputeView(next) },
        change: { disputes: [next] },
        after: notifyLater(next),
      };
    },

    /** Test helper: the cardholder's bank decides the dispute. */
    resolve(id: string, body: Record<string, unknown>): Outcome {
      const d = store.dispute(id);
      if (!d) return { reply: failure(404, 'resource_missing', 'No such dispute') };
      const outcome = body.outcome;
      if (outcome !== 'won' && outcome !== 'lost')
        return { reply: failure(400, 'invalid_request', 'outcome must be won or lost') };
      if (d.status === 'won' || d.status === 'lost')
        return { reply: failure(400, 'dispute_closed', `The dispute is already ${d.status}`) };
      const next = withNotification({ ...d, status: outcome }, 'dispute.closed');
      return {
        reply: { status: 200, body: disputeView(next) },
        change: { disputes: [next] },
        after: notifyLater(next),
      };
    },

    /** Test helper: delivers the latest notification `copies` times at once, as a redelivery would. */
    async redeliver(id: string, body: Record<string, unknown>): Promise<Reply> {
      const d = store.dispute(id);
      if (!d) return failure(404, 'resource_missing', 'No such dispute');
      const copies = Number(body.copies ?? 1);
      if (!Number.isSafeInteger(copies) || copies < 1 || copies > 20)
        return failure(400, 'invalid_request', 'copies must be 1 to 20');
      const taken = await Promise.all(Array.from({ length: copies }, () => deliver(d)));
      return { status: 200, body: { delivered: taken.filter(Boolean).length } };
    },
  };
}
