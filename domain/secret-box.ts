import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * Encryption at rest for secrets the service must be able to use again (webhook signing secrets,
 * idempotent replays that hold one): AES-256-GCM with a 96-bit random nonce per value, the key
 * from configuration (decision 0112). A sealed value reads
 * `enc1.<key id>.<nonce>.<ciphertext>.<tag>` (base64url parts); the key id is the first 8 hex
 * digits of the key's SHA-256, so a value sealed under another key is named as such, not garbled.
 * `context` is bound as additional data: a sealed value copied to another row does not open there.
 */
export interface SecretBox {
  seal(plaintext: string, context: string): string;
  /** The plaintext of a sealed value; a value that is not sealed (written before encryption) as is. */
  open(stored: string, context: string): string;
}

const PREFIX = 'enc1';

/** Whether a stored value is sealed (rather than plaintext from before encryption at rest). */
export function isSealed(stored: string): boolean {
  return stored.startsWith(`${PREFIX}.`);
}

/**
 * The key from its configured text: 64 hex digits or the base64 of 32 bytes. Throws on anything
 * else, naming the expected shapes and never echoing the value.
 */
export function parseSecretsKey(text: string): Buffer {
  const trimmed = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(trimmed)) return Buffer.from(trimmed, 'hex');
  if (/^[A-Za-z0-9+/_-]{43}=?$/.test(trimmed)) {
    const key = Buffer.from(trimmed, 'base64');
    if (key.length === 32) return key;
  }
  throw new Error('the secrets key must be 32 bytes: 64 hex digits, or base64 (44 characters)');
}

/** A new random key, as 64 hex digits. */
export function generateSecretsKey(): string {
  return randomBytes(32).toString('hex');
}

export function createSecretBox(keyText: string): SecretBox {
  const key = parseSecretsKey(keyText);
  const keyId = createHash('sha256').update(key).digest('hex').slice(0, 8);
  return {
    seal(plaintext, context) {
      const nonce = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, nonce);
      cipher.setAAD(Buffer.from(context, 'utf8'));
      const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      const parts = [nonce, ciphertext, cipher.getAuthTag()].map((b) => b.toString('base64url'));
      return [PREFIX, keyId, ...parts].join('.');
    },
    open(stored, context) {
      if (!isSealed(stored)) return stored;
      const [, id, nonce, ciphertext, tag] = stored.split('.');
      if (id !== keyId) {
        throw new Error(`a secret sealed under key ${id} cannot be opened with key ${keyId}`);
      }
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(nonce ?? '', 'base64url'));
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(Buffer.from(tag ?? '', 'base64url'));
      return Buffer.concat([
        decipher.update(Buffer.from(ciphertext ?? '', 'base64url')),
        decipher.final(),
      ]).toString('utf8');
    },
  };
}

/**
 * What each sealed value is bound to: the row and column it belongs to. The migration that sealed
 * the rows written before encryption and the repositories use these same strings.
 */
export const SEALED_AT = {
  channelSecret: (channelId: string) => `notification_channels.secret:${channelId}`,
  channelPreviousSecret: (channelId: string) => `notification_channels.previous_secret:${channelId}`,
  totpSecret: (userId: string) => `user_totp.secret:${userId}`,
  platformSecret: (connectionId: string) => `platform_connections.secret:${connectionId}`,
  replay: (merchantId: string, livemode: boolean, key: string) =>
    `idempotency_keys.response_body:${merchantId}:${livemode ? 'live' : 'test'}:${key}`,
};
