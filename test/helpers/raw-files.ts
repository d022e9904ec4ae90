import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';

/** What both raw bank file stores' tests (PostgreSQL and S3) need: names, bytes read back, files. */
export const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

export async function bytesOf(stream: Readable): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const c of stream) parts.push(c as Buffer);
  return Buffer.concat(parts);
}

/** The bytes as a file in `dir`, named by their hash, as bank sync hands a downloaded file over. */
export function fileWith(dir: string, bytes: Buffer): string {
  const p = path.join(dir, sha256(bytes));
  writeFileSync(p, bytes);
  return p;
}
