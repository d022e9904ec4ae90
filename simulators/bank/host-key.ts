import { generateKeyPairSync } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { utils, type ParsedKey } from 'ssh2';
import { hostKeyFingerprint } from '../../adapters/banks/sftp-transport';

const HOST_KEY_FILE = 'sftp-host-rsa.pem';

/**
 * A new RSA private key in PKCS#1 PEM. RSA rather than ed25519 because ssh2 reads node:crypto's
 * PKCS#1 RSA PEM but not its PKCS#8 ed25519 PEM.
 */
export function generateHostKey(): string {
  return generateKeyPairSync('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  }).privateKey;
}

/** The host key kept in `dataDir` (created on first start, so clients can keep trusting it). */
export function loadOrCreateHostKey(dataDir: string): string {
  const path = join(dataDir, HOST_KEY_FILE);
  if (existsSync(path)) return readFileSync(path, 'utf8');
  mkdirSync(dataDir, { recursive: true });
  const key = generateHostKey();
  writeFileSync(path, key, { mode: 0o600 });
  return key;
}

/** The OpenSSH one-line public key (`ssh-rsa AAAA…`) of a private key, as an authorized key. */
export function openSshPublicKey(privateKey: string | Buffer): string {
  const parsed = parsePrivateKey(privateKey);
  return `${parsed.type} ${parsed.getPublicSSH().toString('base64')}`;
}

/** The sha256 fingerprint clients pin, of a private host key. */
export function fingerprintOfPrivateKey(privateKey: string | Buffer): string {
  return hostKeyFingerprint(parsePrivateKey(privateKey).getPublicSSH());
}

function parsePrivateKey(privateKey: string | Buffer): ParsedKey {
  const parsed = utils.parseKey(privateKey);
  if (parsed instanceof Error) throw parsed;
  return parsed;
}
