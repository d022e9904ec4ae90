import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Result } from './operations';
import { SkilSignatureVerificationError } from './errors';

/** An event as the ledger and the webhook body carry it (spec §6.2). */
export type SkilEvent = Result<'/v1/events/{id}', 'get'>;

/**
 * Checks `X-Service-Signature` (`sha256=` + hex HMAC-SHA256 of the raw body, keyed with the channel's
 * signing secret) over the exact bytes received, in constant time, and returns the parsed event.
 * Throws `SkilSignatureVerificationError` when the header is missing or does not match: answer 401.
 */
export function constructEvent(
  rawBody: string | Buffer | Uint8Array,
  signatureHeader: string | string[] | null | undefined,
  secret: string,
): SkilEvent {
  const body = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : Buffer.from(rawBody);
  const header = Array.isArray(signatureHeader) ? signatureHeader[0] : signatureHeader;
  if (typeof header !== 'string' || header.length === 0) {
    throw fail('No X-Service-Signature header: is this request from Skil?');
  }
  const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(body).digest('hex')}`, 'utf8');
  const given = Buffer.from(header.trim(), 'utf8');
  // Lengths first (timingSafeEqual needs equal lengths); the length of a valid signature is public.
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw fail('X-Service-Signature does not match the body: wrong signing secret, or the body was changed');
  }
  try {
    return JSON.parse(body.toString('utf8')) as SkilEvent;
  } catch {
    throw fail('The signed body is not JSON');
  }
}

function fail(message: string) {
  return new SkilSignatureVerificationError({ type: 'signature_verification_error', message });
}
