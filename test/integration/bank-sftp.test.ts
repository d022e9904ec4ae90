/**
 * The real SftpTransport (ssh2-sftp-client) against the simulated bank's real SSH/SFTP server
 * (ssh2), over TCP on localhost: no mock of either side.
 */
import {
  appendFileSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createHash } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SftpClient from 'ssh2-sftp-client';
import { TransportError, type BankFileTransport } from '../../adapters/banks/bank-file-transport';
import { generateHostKey, openSshPublicKey } from '../../simulators/bank/host-key';
import {
  SIMULATED_BANK_FOLDERS,
  startSimulatedBankSftp,
  type SimulatedBankSftp,
} from '../../simulators/bank/sftp-server';
import { createSftpTransport, type SftpConnectionConfig } from '../../adapters/banks/sftp-transport';
import { freePort } from '../../stack/free-port';

const clientKey = generateHostKey();
let root: string;
let bankDataDir: string;
let local: string;
let bank: SimulatedBankSftp;
const open: BankFileTransport[] = [];

function transport(overrides: Partial<SftpConnectionConfig> = {}): BankFileTransport {
  const t = createSftpTransport({
    host: '127.0.0.1',
    port: bank.port,
    username: 'skil',
    password: 'correct horse',
    hostKeySha256: bank.hostKeyFingerprint,
    folders: SIMULATED_BANK_FOLDERS,
    settleMs: 300,
    connectRetry: { attempts: 3, initialDelayMs: 100, maxDelayMs: 400 },
    ...overrides,
  });
  open.push(t);
  return t;
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'bank-root-'));
  local = mkdtempSync(join(tmpdir(), 'bank-local-'));
  bankDataDir = mkdtempSync(join(tmpdir(), 'bank-data-'));
  bank = await startSimulatedBankSftp({
    rootDir: root,
    dataDir: bankDataDir,
    users: [
      { username: 'skil', password: 'correct horse' },
      { username: 'keyed', publicKey: openSshPublicKey(clientKey) },
    ],
  });
});

afterEach(async () => {
  await Promise.all(open.splice(0).map((t) => t.close()));
});

afterAll(async () => {
  await bank.stop();
  rmSync(root, { recursive: true, force: true });
  rmSync(local, { recursive: true, force: true });
  rmSync(bankDataDir, { recursive: true, force: true });
});

test('lists, downloads with sha256, archives, and uploads under a temporary name then renames', async () => {
  const body = Buffer.from('<Document>statement</Document>\n'.repeat(5000)); // 155 kB: several READs
  writeFileSync(join(root, 'inbox', 'camt053-20261120.xml'), body);
  const sftp = transport();

  const listed = await sftp.listInbox();
  expect(listed).toEqual([
    { name: 'camt053-20261120.xml', size: body.length, modifiedAt: expect.any(Number) },
  ]);

  const target = join(local, 'camt053-20261120.xml');
  const downloaded = await sftp.download('camt053-20261120.xml', target);
  expect(downloaded).toEqual({
    name: 'camt053-20261120.xml',
    localPath: target,
    bytes: body.length,
    sha256: createHash('sha256').update(body).digest('hex'),
  });
  expect(readFileSync(target).equals(body)).toBe(true);
  expect(existsSync(`${target}.partial`)).toBe(false);

  await sftp.archive('camt053-20261120.xml');
  expect(readdirSync(join(root, 'inbox'))).toEqual([]);
  expect(readdirSync(join(root, 'archive'))).toEqual(['camt053-20261120.xml']);
  expect(await sftp.listInbox()).toEqual([]);

  // Archiving a second delivery with the same name keeps both.
  writeFileSync(join(root, 'inbox', 'camt053-20261120.xml'), 'again');
  await sftp.archive('camt053-20261120.xml');
  expect(readdirSync(join(root, 'archive'))).toHaveLength(2);

  const payout = Buffer.from('<Document>pain.001</Document>');
  await sftp.upload('pain001-stl_1.xml', payout);
  expect(readdirSync(join(root, 'outbox'))).toEqual(['pain001-stl_1.xml']);
  expect(readFileSync(join(root, 'outbox', 'pain001-stl_1.xml')).equals(payout)).toBe(true);

  // Never overwrites a payout file already delivered.
  await expect(sftp.upload('pain001-stl_1.xml', Buffer.from('other'))).rejects.toMatchObject({
    kind: 'already_exists',
    retryable: false,
  });
  expect(readFileSync(join(root, 'outbox', 'pain001-stl_1.xml')).equals(payout)).toBe(true);
  expect(readdirSync(join(root, 'outbox'))).toEqual(['pain001-stl_1.xml']);
});

test('an upload in progress is never seen under its final name', async () => {
  const sftp = transport();
  const big = Buffer.alloc(1_000_000, 'x');
  const seen = new Set<string>();
  let done = false;
  const watcher = (async () => {
    while (!done) {
      for (const name of await readdir(join(root, 'outbox'))) seen.add(name);
      await new Promise((r) => setTimeout(r, 5));
    }
  })();
  await sftp.upload('big.xml', big);
  done = true;
  await watcher;
  expect(seen.has('big.xml.partial')).toBe(true);
  expect(readFileSync(join(root, 'outbox', 'big.xml')).length).toBe(big.length);
});

test('public-key authentication', async () => {
  writeFileSync(join(root, 'inbox', 'keyed.xml'), 'k');
  const sftp = transport({ username: 'keyed', password: undefined, privateKey: clientKey });
  expect((await sftp.listInbox()).map((f) => f.name)).toContain('keyed.xml');
  rmSync(join(root, 'inbox', 'keyed.xml'));
});

test('files still being written are not listed as ready', async () => {
  writeFileSync(join(root, 'inbox', 'upload.xml.partial'), 'half');
  writeFileSync(join(root, 'inbox', '.hidden-upload.xml'), 'half');
  writeFileSync(join(root, 'inbox', 'empty.xml'), '');
  writeFileSync(join(root, 'inbox', 'growing.xml'), 'start');
  const sftp = transport();
  const growing = setInterval(() => appendFileSync(join(root, 'inbox', 'growing.xml'), ' more'), 50);
  try {
    expect(await sftp.listInbox()).toEqual([]);
  } finally {
    clearInterval(growing);
  }
  // Once it stops changing it is ready; the temporary names and the empty file never are.
  expect((await sftp.listInbox()).map((f) => f.name)).toEqual(['growing.xml']);
  for (const name of readdirSync(join(root, 'inbox'))) rmSync(join(root, 'inbox', name));
});

test('a host key other than the pinned one is refused, without retrying', async () => {
  const before = bank.stats().connections;
  const sftp = transport({ hostKeySha256: 'SHA256:' + 'A'.repeat(43) });
  const error = await sftp.listInbox().catch((e: unknown) => e);
  expect(error).toBeInstanceOf(TransportError);
  expect(error).toMatchObject({ kind: 'host_key_mismatch', retryable: false });
  expect((error as Error).message).toContain(bank.hostKeyFingerprint);
  expect(bank.stats().connections - before).toBe(1);
});

test('a wrong password is refused, without retrying', async () => {
  const before = bank.stats();
  const sftp = transport({ password: 'wrong' });
  await expect(sftp.listInbox()).rejects.toMatchObject({ kind: 'authentication_failed', retryable: false });
  const after = bank.stats();
  expect(after.connections - before.connections).toBe(1);
  expect(after.rejectedLogins - before.rejectedLogins).toBe(1);
});

test('a refused connection is retried with backoff until the server is up', async () => {
  const port = await freePort();
  const sftp = transport({ port, connectRetry: { attempts: 5, initialDelayMs: 200, maxDelayMs: 800 } });
  const lateRoot = mkdtempSync(join(tmpdir(), 'bank-late-'));
  let late: SimulatedBankSftp | undefined;
  const starting = new Promise<void>((resolve) =>
    setTimeout(() => {
      void startSimulatedBankSftp({
        rootDir: lateRoot,
        port,
        // The same bank restarting: it presents the host key the client has pinned.
        hostKey: readFileSync(join(bankDataDir, 'sftp-host-rsa.pem'), 'utf8'),
        users: [{ username: 'skil', password: 'correct horse' }],
      }).then((b) => {
        late = b;
        resolve();
      });
    }, 250),
  );
  try {
    expect(await sftp.listInbox()).toEqual([]);
    await starting;
  } finally {
    await starting;
    await sftp.close();
    await late?.stop();
    rmSync(lateRoot, { recursive: true, force: true });
  }
});

test('a refused connection gives up after the configured attempts', async () => {
  const port = await freePort();
  const started = Date.now();
  const sftp = transport({ port, connectRetry: { attempts: 3, initialDelayMs: 100, maxDelayMs: 400 } });
  await expect(sftp.listInbox()).rejects.toMatchObject({ kind: 'connection_failed', retryable: true });
  // Two pauses of at least 50 and 100 ms (half of 100 and 200, the jitter's floor).
  expect(Date.now() - started).toBeGreaterThanOrEqual(150);
});

test('paths outside the served folder are refused', async () => {
  writeFileSync(join(root, '..', 'outside-secret.txt'), 'secret');
  const raw = new SftpClient();
  await raw.connect({
    host: '127.0.0.1',
    port: bank.port,
    username: 'skil',
    password: 'correct horse',
    hostVerifier: () => true,
  });
  try {
    await expect(raw.get('/../outside-secret.txt')).rejects.toThrow(/outside the served folder|denied/i);
    await expect(raw.get('inbox/../../outside-secret.txt')).rejects.toThrow();
    await expect(raw.list('/..')).rejects.toThrow();
    await expect(raw.put(Buffer.from('x'), '/../planted.txt')).rejects.toThrow();
    writeFileSync(join(root, 'inbox', 'escape.xml'), 'x');
    await expect(raw.rename('/inbox/escape.xml', '/../escaped.xml')).rejects.toThrow();
    expect(existsSync(join(root, '..', 'planted.txt'))).toBe(false);
    expect(existsSync(join(root, '..', 'escaped.xml'))).toBe(false);
    expect(await raw.realPath('/inbox/../outbox')).toBe('/outbox');
  } finally {
    await raw.end();
    rmSync(join(root, '..', 'outside-secret.txt'), { force: true });
    rmSync(join(root, 'inbox', 'escape.xml'), { force: true });
  }
  // The transport itself only takes plain file names.
  await expect(transport().download('../outside-secret.txt', join(local, 'x'))).rejects.toBeInstanceOf(
    TransportError,
  );
});

test('the host key persists in the data dir, so the pinned fingerprint survives a restart', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'bank-data-'));
  const first = await startSimulatedBankSftp({ rootDir: join(dataDir, 'root'), dataDir, users: [] });
  await first.stop();
  const second = await startSimulatedBankSftp({ rootDir: join(dataDir, 'root'), dataDir, users: [] });
  await second.stop();
  expect(second.hostKeyFingerprint).toBe(first.hostKeyFingerprint);
  rmSync(dataDir, { recursive: true, force: true });
});
