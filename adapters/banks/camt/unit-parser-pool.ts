import { extname, join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { CamtError, type CamtErrorCode } from './errors';
import type { CamtUnit, CamtUnitResult } from './read-unit';

type Reply =
  { id: number; results: CamtUnitResult[] } | { id: number; error: { code: CamtErrorCode; message: string } };

/** Reads batches of units on worker threads, answering each batch's promise in turn. */
export interface UnitParserPool {
  read(units: CamtUnit[]): Promise<CamtUnitResult[]>;
  close(): Promise<void>;
}

/**
 * Starts `size` workers running unit-worker: compiled JavaScript as is, TypeScript (under tsx)
 * through tsx's CommonJS hook, since loader hooks registered on the main thread do not reach
 * worker threads.
 */
export function createUnitParserPool(size: number): UnitParserPool {
  const file = join(__dirname, `unit-worker${extname(__filename)}`);
  const waiting = new Map<number, { resolve: (r: CamtUnitResult[]) => void; reject: (e: Error) => void }>();
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
      else pending.resolve(reply.results);
    });
    worker.on('error', (error) => {
      for (const pending of waiting.values()) pending.reject(error);
      waiting.clear();
    });
    return worker;
  });
  let next = 0;
  return {
    read(units) {
      const id = next++;
      return new Promise<CamtUnitResult[]>((resolve, reject) => {
        waiting.set(id, { resolve, reject });
        workers[id % workers.length]!.postMessage({ id, units });
      });
    },
    async close() {
      await Promise.all(workers.map((w) => w.terminate()));
    },
  };
}
