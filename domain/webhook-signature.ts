import { createHmac, timingSafeEqual } from 'node:crypto';

/** `sha256=` + lowercase hex HMAC-SHA256 of the raw body, keyed with the channel secret (spec §6.3). */
export function signWebhookBody(secret: string, rawBody: string | Buffer): string {
  return `sha256=${createHmac('sha256', secret).update(rawBody).digest('hex')}`;
}

/** Receiver-side check, in constant time with lengths compared first (spec §6.3.2). */
export function verifyWebhookSignature(
  secret: string,
  rawBody: string | Buffer,
  header: string | undefined,
): boolean {
  if (header === undefined) return false;
  const expected = Buffer.from(signWebhookBody(secret, rawBody));
  const given = Buffer.from(header);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
