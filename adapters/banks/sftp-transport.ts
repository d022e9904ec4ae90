import { createHash, timingSafeEqual } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { posix } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import SftpClient from 'ssh2-sftp-client';
import {
  TransportError,
  type BankFileTransport,
  type DownloadedFile,
  type InboxFile,
} from './bank-file-transport';
import { DEFAULT_CONNECT_RETRY, withRetry, type RetryPolicy } from './connect-retry';
import { toTransportError } from './transport-errors';

/** One bank connection: where to connect, how to prove who we are and who they are, and folders. */
export interface SftpConnectionConfig {
  host: string;
  port: number;
  username: string;
  password?: string;
  privateKey?: string | Buffer;
  passphrase?: string;
  /** The bank's host key as OpenSSH prints it: `SHA256:` + unpadded base64 of its sha256. */
  hostKeySha256: string;
  folders: { inbox: string; archive: string; outbox: string };
  connectRetry?: RetryPolicy;
  /** SSH handshake timeout; ssh2's default is 20 s. */
  readyTimeoutMs?: number;
  /** Inbox files must keep size and time this long to count as complete (default 2000 ms). */
  settleMs?: number;
  /** Parallel reads (`fastGet`) — off by default: many servers truncate or corrupt with it. */
  useFastGet?: boolean;
}

/** Suffix an upload carries until it is complete; the bank ignores such names, and so do we. */
export const PARTIAL_SUFFIX = '.partial';
const TEMPORARY_NAME = /^\.|\.(partial|part|tmp|filepart)$/i;

/** Whether a file name marks a file still being written (leading dot, or a temporary suffix). */
export function isTemporaryName(name: string): boolean {
  return TEMPORARY_NAME.test(name);
}

/** The OpenSSH-style sha256 fingerprint of an SSH wire-format public key. */
export function hostKeyFingerprint(publicKey: Buffer): string {
  return `SHA256:${createHash('sha256').update(publicKey).digest('base64').replace(/=+$/, '')}`;
}

/**
 * A BankFileTransport over SFTP (ssh2-sftp-client). The connection opens on first use, with
 * retries and exponential backoff for transient failures only, and is reused until close(). Other
 * operations are not retried here: they fail with a classified TransportError and the calling
 * activity retries, so a half-done step is never repeated blindly.
 *
 * Completeness convention for the inbox: a file is ready when its name has no temporary marker
 * (leading `.`, or `.partial`/`.part`/`.tmp`/`.filepart`), it is not empty, and its size and
 * modification time are the same in two listings `settleMs` apart. Banks that upload under a
 * temporary name and rename are ready at once; the settle window covers those that write in place.
 */
export function createSftpTransport(config: SftpConnectionConfig): BankFileTransport {
  let client: SftpClient | undefined;
  let connecting: Promise<SftpClient> | undefined;
  const settleMs = config.settleMs ?? 2000;

  const connectOnce = async (): Promise<SftpClient> => {
    const candidate = new SftpClient();
    let presented: string | undefined;
    try {
      await candidate.connect({
        host: config.host,
        port: config.port,
        username: config.username,
        ...(config.password !== undefined && { password: config.password }),
        ...(config.privateKey !== undefined && { privateKey: config.privateKey }),
        ...(config.passphrase !== undefined && { passphrase: config.passphrase }),
        readyTimeout: config.readyTimeoutMs ?? 20_000,
        // Offer only what is configured: ssh2 would otherwise fall through to other methods.
        tryKeyboard: false,
        hostVerifier: (key: Buffer): boolean => {
          presented = hostKeyFingerprint(key);
          return sameText(presented, config.hostKeySha256);
        },
      });
    } catch (raw) {
      await candidate.end().catch(() => undefined);
      if (presented !== undefined && !sameText(presented, config.hostKeySha256)) {
        throw new TransportError(
          'host_key_mismatch',
          `host key ${presented} of ${config.host}:${config.port} is not the pinned ${config.hostKeySha256}`,
          false,
        );
      }
      throw toTransportError(raw);
    }
    // Request/response over one channel: without TCP_NODELAY every read waits on delayed ACKs
    // (decision 0080). ssh2-sftp-client's type definitions leave out its ssh2 `client`.
    (candidate as unknown as { client: { setNoDelay(on: boolean): void } }).client.setNoDelay(true);
    // A dropped connection must not be reused: the next operation reconnects.
    candidate.on('close', () => {
      if (client === candidate) client = undefined;
    });
    return candidate;
  };

  const connected = async (): Promise<SftpClient> => {
    if (client !== undefined) return client;
    connecting ??= withRetry(
      config.connectRetry ?? DEFAULT_CONNECT_RETRY,
      connectOnce,
      (e) => toTransportError(e).retryable,
    ).finally(() => {
      connecting = undefined;
    });
    client = await connecting;
    return client;
  };

  /** Runs one operation, classifying any failure; a broken connection is dropped for the next call. */
  const run = async <T>(operation: (sftp: SftpClient) => Promise<T>): Promise<T> => {
    const sftp = await connected();
    try {
      return await operation(sftp);
    } catch (raw) {
      const error = toTransportError(raw);
      if (error.kind === 'connection_failed' || error.kind === 'timeout') {
        client = undefined;
        await sftp.end().catch(() => undefined);
      }
      throw error;
    }
  };

  const listFiles = (sftp: SftpClient) =>
    sftp.list(config.folders.inbox, (entry) => entry.type === '-' && !isTemporaryName(entry.name));

  return {
    async listInbox(): Promise<InboxFile[]> {
      return run(async (sftp) => {
        const first = await listFiles(sftp);
        if (first.length === 0) return [];
        await new Promise((r) => setTimeout(r, settleMs));
        const second = new Map((await listFiles(sftp)).map((f) => [f.name, f]));
        return first
          .filter((f) => {
            const again = second.get(f.name);
            return f.size > 0 && again?.size === f.size && again.modifyTime === f.modifyTime;
          })
          .map((f) => ({ name: f.name, size: f.size, modifiedAt: f.modifyTime }))
          .sort((a, b) => a.modifiedAt - b.modifiedAt || a.name.localeCompare(b.name));
      });
    },

    async download(name: string, localPath: string): Promise<DownloadedFile> {
      const remote = inFolder(config.folders.inbox, name);
      const partial = `${localPath}${PARTIAL_SUFFIX}`;
      try {
        return await run(async (sftp) => {
          const expected = (await sftp.stat(remote)).size;
          const hash = createHash('sha256');
          let bytes = 0;
          if (config.useFastGet === true) {
            await sftp.fastGet(remote, partial);
            bytes = await hashFile(partial, hash);
          } else {
            const tap = new Transform({
              transform(chunk: Buffer, _encoding, done) {
                hash.update(chunk);
                bytes += chunk.length;
                done(null, chunk);
              },
            });
            const written = pipeline(tap, createWriteStream(partial));
            await sftp.get(remote, tap);
            await written;
          }
          if (bytes !== expected) {
            throw new TransportError(
              'incomplete_transfer',
              `${name}: got ${bytes} of ${expected} bytes`,
              true,
            );
          }
          // The local copy appears under its final name only when whole, like the remote side.
          await rename(partial, localPath);
          return { name, localPath, bytes, sha256: hash.digest('hex') };
        });
      } finally {
        await rm(partial, { force: true });
      }
    },

    async archive(name: string): Promise<void> {
      const from = inFolder(config.folders.inbox, name);
      await run(async (sftp) => {
        let to = inFolder(config.folders.archive, name);
        // SFTP v3 rename never overwrites; a bank may deliver the same name twice over the years.
        if ((await sftp.exists(to)) !== false) to = `${to}.${Date.now()}`;
        await sftp.rename(from, to);
      });
    },

    async upload(name: string, content: Buffer | NodeJS.ReadableStream): Promise<void> {
      const final = inFolder(config.folders.outbox, name);
      const temporary = `${final}${PARTIAL_SUFFIX}`;
      await run(async (sftp) => {
        if ((await sftp.exists(final)) !== false) {
          throw new TransportError('already_exists', `${name} is already in the outbox`, false);
        }
        try {
          await sftp.put(content, temporary);
          await sftp.rename(temporary, final);
        } catch (error) {
          await sftp.delete(temporary, true).catch(() => undefined);
          throw error;
        }
      });
    },

    async close(): Promise<void> {
      const open = client;
      client = undefined;
      if (open !== undefined) await open.end().catch(() => undefined);
    },
  };
}

/** Joins a folder and a bare file name; a name that is a path could reach outside the folder. */
function inFolder(folder: string, name: string): string {
  if (name === '' || name.includes('/') || name.includes('\\') || name === '.' || name === '..') {
    throw new TransportError('not_found', `${JSON.stringify(name)} is not a plain file name`, false);
  }
  return posix.join(folder, name);
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

async function hashFile(path: string, hash: ReturnType<typeof createHash>): Promise<number> {
  let bytes = 0;
  for await (const chunk of createReadStream(path)) {
    hash.update(chunk as Buffer);
    bytes += (chunk as Buffer).length;
  }
  return bytes;
}
