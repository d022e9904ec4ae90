import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { SimulatedBankUser } from './sftp-server';

const LOGIN_FILE = 'sftp-login.json';

/**
 * The password login of the simulated bank's SFTP server, generated on first start and kept in
 * `dataDir` (mode 0600), so a restarted bank accepts the same credentials as before.
 */
export async function loadOrCreateSftpLogin(
  dataDir: string,
  username = 'skil',
): Promise<Required<Pick<SimulatedBankUser, 'username' | 'password'>>> {
  const file = path.join(dataDir, LOGIN_FILE);
  const text = await readFile(file, 'utf8').catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return null;
    throw err;
  });
  if (text) {
    const stored = JSON.parse(text) as { username?: unknown; password?: unknown };
    if (typeof stored.username === 'string' && typeof stored.password === 'string')
      return { username: stored.username, password: stored.password };
  }
  await mkdir(dataDir, { recursive: true });
  const login = { username, password: randomBytes(24).toString('base64url') };
  await writeFile(file, JSON.stringify(login), { mode: 0o600 });
  return login;
}
