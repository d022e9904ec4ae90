import { Readable } from 'node:stream';

/** The text's bytes as a stream of `size`-byte chunks, so a reader meets every possible split. */
export function chunks(data: string, size: number): Readable {
  const buffer = Buffer.from(data);
  const parts: Buffer[] = [];
  for (let i = 0; i < buffer.length; i += size) parts.push(buffer.subarray(i, i + size));
  return Readable.from(parts);
}
