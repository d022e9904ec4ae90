import { extname, join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { CamtEntry } from './camt-types';
import { CamtError, type CamtErrorCode } from './errors';

type Reply =
  { id: number; entries: CamtEntry[] } | { id: number; error: { code: CamtErrorCode; message: string } };

/** Parses batches of entry chunks on worker threads, answering each batch's promise in turn. */
export interface EntryParserPool {
  parse(statementId: string, firstIndex: number, xml: string[]): Promise<CamtEntry[]>;
  close(): Promise<void>;
}

/**
 * Starts `size` workers running entry-worker: compiled JavaScript as is, TypeScript (under tsx)
 * through tsx's CommonJS hook, since loader hooks registered on the main thread do not reach
 * worker threads.
 */
export function createEntryParserPool(size: number): EntryParserPool {
  const file = join(__dirname, `entry-worker${extname(__filename)}`);
  const waiting = new Map<number, { resolve: (e: CamtEntry[]) => void; reject: (e: Error) => void }>();
  const workers = Array.from({ length: size }, () => {
    const boot = file.endsWith('.ts')
      ? `require('tsx/cjs'); require(${JSON.stringify(file)});`
      : `require(${JSON.stringify(file)});`;
    const worker = new Worker(boot, { eval: true, execArgv: [] });
    worker.on('message', (reply: Reply) => {
      const pending = waiting.get(reply.id);
      waiting.delete(reply.id);
      if (pending === undefined) return;
      if ('error' in reply) pending.reject(new CamtError(reply.error.code, reply.error.message));
      else pending.resolve(reply.entries);
    });
    worker.on('error', (error) => {
      for (const pending of waiting.values()) pending.reject(error);
      waiting.clear();
    });
    return worker;
  });
  let next = 0;
  return {
    parse(statementId, firstIndex, xml) {
      const id = next++;
      return new Promise<CamtEntry[]>((resolve, reject) => {
        waiting.set(id, { resolve, reject });
        workers[id % workers.length]!.postMessage({ id, statementId, firstIndex, xml });
      });
    },
    async close() {
      await Promise.all(workers.map((w) => w.terminate()));
    },
  };
}
