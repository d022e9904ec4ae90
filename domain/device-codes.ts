import { createHash, randomInt } from 'node:crypto';
import { randomBase62 } from './ids';

/**
 * Codes of the device authorization flow (RFC 8628 §6.1). The user code is 8 of the 20 consonants
 * RFC 8628 suggests, shown as XXXX-XXXX: no vowels (so no words), no digits (so no 0/O or 1/I
 * confusion), case-insensitive. About 34.5 bits, enough for a code that lives 15 minutes and can
 * only be entered by a signed-in user.
 */

export const USER_CODE_ALPHABET = 'BCDFGHJKLMNPQRSTVWXZ';
export const USER_CODE_LENGTH = 8;

/** A new user code, 8 characters of the alphabet, without the dash. */
export function generateUserCode(): string {
  let code = '';
  for (let i = 0; i < USER_CODE_LENGTH; i++) code += USER_CODE_ALPHABET[randomInt(USER_CODE_ALPHABET.length)];
  return code;
}

/** `BCDF-GHJK` for display. */
export function formatUserCode(code: string): string {
  return `${code.slice(0, 4)}-${code.slice(4)}`;
}

/** What a person typed, upper-cased without dashes or spaces, or null when it cannot be a code. */
export function normalizeUserCode(input: string): string | null {
  const code = input.toUpperCase().replace(/[\s-]/g, '');
  return code.length === USER_CODE_LENGTH && [...code].every((c) => USER_CODE_ALPHABET.includes(c))
    ? code
    : null;
}

/** The polling secret: 48 base62 characters (~286 bits). Stored only as its SHA-256. */
export function generateDeviceCode(): string {
  return randomBase62(48);
}

/** SHA-256 of a high-entropy secret (device codes, session tokens, operator tokens). */
export function sha256(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}
