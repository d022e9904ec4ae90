import { timingSafeEqual } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Server, utils, type AuthContext, type Connection, type ParsedKey } from 'ssh2';
import type { Logger } from '../../stack/logger';
import { fingerprintOfPrivateKey, generateHostKey, loadOrCreateHostKey } from './host-key';
import { serveSftpSession } from './sftp-session';

/** A login the simulated bank accepts: a password, an authorized public key, or both. */
export interface SimulatedBankUser {
  username: string;
  password?: string;
  /** OpenSSH one-line public key (`ssh-rsa AAAA…`). */
  publicKey?: string;
}

export interface SimulatedBankSftpOptions {
  /** Served as `/`; `inbox/`, `archive/` and `outbox/` are created in it. */
  rootDir: string;
  /** 0 or absent: any free port. */
  port?: number;
  host?: string;
  users: SimulatedBankUser[];
  /** A PEM private host key; else the one kept in `dataDir`; else a new one for this run. */
  hostKey?: string | Buffer;
  dataDir?: string;
  logger?: Logger;
}

export interface SimulatedBankSftp {
  port: number;
  /** What clients pin: `SHA256:…` of the host key. */
  hostKeyFingerprint: string;
  /** Connections accepted and logins refused so far, so tests can tell whether a client retried. */
  stats(): { connections: number; rejectedLogins: number };
  stop(): Promise<void>;
}

/** The folders a bank connection uses on the simulated bank. */
export const SIMULATED_BANK_FOLDERS = { inbox: '/inbox', archive: '/archive', outbox: '/outbox' } as const;

/**
 * Starts the simulated bank's SSH server with an SFTP subsystem, serving `rootDir` from disk: the
 * same protocol a bank's file exchange speaks, so the real SftpTransport is what tests exercise.
 * Password and public-key logins; shell, exec and port forwarding are refused.
 */
export async function startSimulatedBankSftp(options: SimulatedBankSftpOptions): Promise<SimulatedBankSftp> {
  for (const folder of Object.values(SIMULATED_BANK_FOLDERS)) {
    mkdirSync(join(options.rootDir, folder), { recursive: true });
  }
  const hostKey =
    options.hostKey ??
    (options.dataDir !== undefined ? loadOrCreateHostKey(options.dataDir) : generateHostKey());
  const users = options.users.map((user) => ({ ...user, parsedKey: parsePublicKey(user.publicKey) }));
  const connections = new Set<Connection>();
  const counts = { connections: 0, rejectedLogins: 0 };

  const server = new Server({ hostKeys: [hostKey] }, (client) => {
    connections.add(client);
    counts.connections += 1;
    // SFTP is request/response: with Nagle's algorithm each reply's last segment waits for the
    // client's delayed ACK, which made a plain get crawl at ~250 kB/s over loopback.
    // (ssh2 has the method; its type definitions leave it out.)
    (client as unknown as { setNoDelay(on: boolean): void }).setNoDelay(true);
    client
      .on('authentication', (ctx) => {
        // 'none' is every client's opening probe for the allowed methods, not a failed login.
        if (!authenticate(ctx, users) && ctx.method !== 'none') counts.rejectedLogins += 1;
      })
      .on('ready', () => {
        client.on('session', (acceptSession) => {
          const session = acceptSession();
          session.on('sftp', (acceptSftp) => serveSftpSession(acceptSftp(), options.rootDir));
          session.on('exec', (_accept, reject) => reject());
          session.on('shell', (_accept, reject) => reject());
        });
        client.on('tcpip', (_accept, reject) => reject());
      })
      // A client vanishing mid-handshake is routine for a server; it must not crash the process.
      .on('error', (error) => options.logger?.debug({ err: error }, 'simulated bank sftp client error'))
      .on('close', () => connections.delete(client));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  options.logger?.info({ port }, 'simulated bank sftp listening');

  return {
    port,
    hostKeyFingerprint: fingerprintOfPrivateKey(hostKey),
    stats: () => ({ ...counts }),
    async stop(): Promise<void> {
      for (const connection of connections) connection.end();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

type KnownUser = SimulatedBankUser & { parsedKey: ParsedKey | undefined };

/** Accepts or rejects one authentication request; returns whether it was accepted. */
function authenticate(ctx: AuthContext, users: KnownUser[]): boolean {
  const accepted = allowed(ctx, users);
  if (accepted) ctx.accept();
  else ctx.reject(['password', 'publickey']);
  return accepted;
}

function allowed(ctx: AuthContext, users: KnownUser[]): boolean {
  const user = users.find((u) => sameBytes(Buffer.from(u.username), Buffer.from(ctx.username)));
  if (user === undefined) return false;
  if (ctx.method === 'password' && user.password !== undefined) {
    return sameBytes(Buffer.from(ctx.password), Buffer.from(user.password));
  }
  if (ctx.method === 'publickey' && user.parsedKey !== undefined) {
    const key = user.parsedKey;
    if (ctx.key.algo !== key.type || !sameBytes(ctx.key.data, key.getPublicSSH())) return false;
    // Without a signature the client only asks whether the key would do; with one, it proves it.
    if (ctx.signature === undefined || ctx.blob === undefined) return true;
    return key.verify(ctx.blob, ctx.signature, ctx.hashAlgo);
  }
  return false;
}

function parsePublicKey(line: string | undefined): ParsedKey | undefined {
  if (line === undefined) return undefined;
  const parsed = utils.parseKey(line);
  if (parsed instanceof Error) throw new Error(`unreadable public key: ${parsed.message}`);
  return parsed;
}

function sameBytes(a: Buffer, b: Buffer): boolean {
  // Compare equal lengths only, so timing reveals nothing about the stored secret's content.
  return a.length === b.length && timingSafeEqual(a, b);
}
