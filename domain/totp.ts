import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Time-based one-time passwords (RFC 6238 over RFC 4226's HOTP) with node:crypto, as authenticator
 * apps compute them: HMAC-SHA-1, 30-second steps, six digits (decision 0220). The other hashes and
 * eight digits exist for RFC 6238's own test vectors.
 */

export type TotpHash = 'sha1' | 'sha256' | 'sha512';

export const TOTP_STEP_SECONDS = 30;
export const TOTP_DIGITS = 6;
/** Steps either side of now a code is still taken in, for a phone clock a little off. */
export const TOTP_DRIFT_STEPS = 1;

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** RFC 4648 base32 without padding, the form authenticator apps read a secret in. */
export function base32Encode(bytes: Buffer): string {
  let out = '';
  let bits = 0;
  let value = 0;
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out;
}

/** Reads base32, ignoring case, spaces and padding; throws on any other character. */
export function base32Decode(text: string): Buffer {
  const clean = text.replace(/[\s=]/g, '').toUpperCase();
  const out: number[] = [];
  let bits = 0;
  let value = 0;
  for (const ch of clean) {
    const index = BASE32.indexOf(ch);
    if (index < 0) throw new Error('not base32');
    value = (value << 5) | index;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 255);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

/** A new shared secret: 20 random bytes (160 bits, RFC 4226's recommended length), in base32. */
export function newTotpSecret(): string {
  return base32Encode(randomBytes(20));
}

/** RFC 4226 HOTP: dynamic truncation of the HMAC of the 8-byte counter. */
export function hotp(key: Buffer, counter: number, digits = TOTP_DIGITS, hash: TotpHash = 'sha1'): string {
  const message = Buffer.alloc(8);
  message.writeBigUInt64BE(BigInt(counter));
  const mac = createHmac(hash, key).update(message).digest();
  const offset = mac[mac.length - 1]! & 0x0f;
  const binary = mac.readUInt32BE(offset) & 0x7fffffff;
  return String(binary % 10 ** digits).padStart(digits, '0');
}

/** The time step of a Unix time in seconds. */
export function totpStep(unixSeconds: number, stepSeconds = TOTP_STEP_SECONDS): number {
  return Math.floor(unixSeconds / stepSeconds);
}

/** The code for a Unix time (RFC 6238 §4.2: T = floor((now - T0) / X), T0 = 0). */
export function totp(
  key: Buffer,
  unixSeconds: number,
  opts: { digits?: number; hash?: TotpHash; stepSeconds?: number } = {},
): string {
  return hotp(key, totpStep(unixSeconds, opts.stepSeconds), opts.digits, opts.hash);
}

/**
 * The step whose code `code` is, within the drift either side of now, or null. The caller refuses
 * a step not after the last one accepted, so each code works once.
 */
export function matchTotp(secretBase32: string, code: string, unixSeconds: number): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const key = base32Decode(secretBase32);
  const now = totpStep(unixSeconds);
  let found: number | null = null;
  // Every candidate is computed and compared in constant time, so timing tells nothing of which matched.
  for (let step = now - TOTP_DRIFT_STEPS; step <= now + TOTP_DRIFT_STEPS; step++) {
    if (timingSafeEqual(Buffer.from(hotp(key, step)), Buffer.from(code)) && found === null) found = step;
  }
  return found;
}

/** The `otpauth://` URI an authenticator app reads from the QR code (Key Uri Format). */
export function otpauthUri(secretBase32: string, issuer: string, account: string): string {
  const label = `${encodeURIComponent(issuer)}:${encodeURIComponent(account)}`;
  const params = new URLSearchParams({
    secret: secretBase32,
    issuer,
    algorithm: 'SHA1',
    digits: String(TOTP_DIGITS),
    period: String(TOTP_STEP_SECONDS),
  });
  return `otpauth://totp/${label}?${params.toString()}`;
}
