import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { generateSecretsKey, parseSecretsKey } from '../domain/secret-box';

/**
 * The embedded default's secrets key (decision 0112): generated on the first start and kept in
 * `<dataDir>/secrets.key` (mode 0600) beside the rest of `npm start`'s data, so a restart opens
 * what the last run sealed. Deleting `.data/` deletes both together.
 */
export async function loadOrCreateSecretsKey(dataDir: string): Promise<string> {
  const file = path.join(dataDir, 'secrets.key');
  const saved = await readFile(file, 'utf8').catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return null;
    throw err;
  });
  if (saved !== null) {
    parseSecretsKey(saved);
    return saved.trim();
  }
  const key = generateSecretsKey();
  await writeFile(file, `${key}\n`, { mode: 0o600, flag: 'wx' });
  return key;
}
