import { createHmac, timingSafeEqual } from 'node:crypto';
import { AcquirerSignatureError, type AcquirerDispute, type DisputeNotification } from './card-acquirer';

/**
 * The acquirer's dispute notifications (decision 0155): JSON posted to the merchant's notification
 * URL with `Acquirer-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body">` under a secret
 * both sides share, Stripe's webhook signature scheme. A signature older than five minutes is
 * refused, so a captured notification cannot be replayed later.
 */

export const NOTIFICATION_SIGNATURE_HEADER = 'acquirer-signature';
const TOLERANCE_SECONDS = 300;

/** The signature header of `body`, signed now. */
export function signNotification(secret: string, body: string, now = new Date()): string {
  const t = Math.floor(now.getTime() / 1000);
  const v1 = createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');
  return `t=${t},v1=${v1}`;
}

const STATUSES = new Set(['needs_response', 'under_review', 'won', 'lost']);
const REASONS = new Set(['fraudulent', 'product_not_received', 'duplicate', 'general']);
const TYPES = new Set(['dispute.created', 'dispute.updated', 'dispute.closed']);

/** Verifies `signature` over `body` and returns the notification it carries. */
export function verifyNotification(
  secret: string,
  body: Buffer,
  signature: string | undefined,
  now = new Date(),
): DisputeNotification {
  const refuse = (why: string) => new AcquirerSignatureError(why, 'invalid_signature', false, 401);
  const parts = new Map(
    (signature ?? '').split(',').map((p) => {
      const i = p.indexOf('=');
      return [p.slice(0, i).trim(), p.slice(i + 1).trim()] as const;
    }),
  );
  const t = Number(parts.get('t'));
  const v1 = parts.get('v1') ?? '';
  if (!Number.isSafeInteger(t) || !/^[0-9a-f]{64}$/.test(v1)) throw refuse('No valid signature header');
  if (Math.abs(now.getTime() / 1000 - t) > TOLERANCE_SECONDS) throw refuse('The signature is too old');
  const expected = createHmac('sha256', secret)
    .update(Buffer.concat([Buffer.from(`${t}.`), body]))
    .digest();
  if (!timingSafeEqual(expected, Buffer.from(v1, 'hex'))) throw refuse('The signature does not match');
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    throw refuse('The notification is not JSON');
  }
  const n = parsed as Partial<DisputeNotification> | null;
  const d = (n?.dispute ?? null) as Partial<AcquirerDispute> | null;
  if (
    typeof n?.id !== 'string' ||
    !TYPES.has(String(n.type)) ||
    d === null ||
    typeof d.id !== 'string' ||
    typeof d.authorization !== 'string' ||
    !Number.isSafeInteger(d.amount) ||
    (d.amount ?? 0) <= 0 ||
    !REASONS.has(String(d.reason)) ||
    !STATUSES.has(String(d.status)) ||
    Number.isNaN(Date.parse(String(d.evidence_due_by))) ||
    Number.isNaN(Date.parse(String(d.created_at)))
  )
    throw refuse('The notification is not a dispute notification');
  return n as DisputeNotification;
}
