import type { Readable } from 'node:stream';

/**
 * Where the raw bytes of received bank files are kept, by their sha256, so that any worker can
 * process a file another one downloaded: a worker keeps no state on its own disk, so workers can be
 * added, killed or replaced (decisions 0145, 0179). Storing the same bytes twice, or at once from two
 * workers, keeps one copy.
 */
export interface RawFileStore {
  /** Keeps the file at `fromPath` under `sha256` (which the caller computed while downloading). */
  put(sha256: string, fromPath: string): Promise<void>;
  /** The stored bytes, streamed; a missing file is an error naming it. */
  open(sha256: string): Readable;
}
