import type { ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';

/** How a child process ended; `error` when it could not be spawned at all. */
export type Exit = { code: number | null; signal: NodeJS.Signals | null; error?: Error };

/** Resolves when the child has ended, for whatever reason. */
export function waitForExit(child: ChildProcess): Promise<Exit> {
  return new Promise((resolve) => {
    // 'error' covers a spawn failure (ENOENT, EACCES), after which 'close' may never come.
    child.once('error', (error) => resolve({ code: null, signal: null, error }));
    child.once('close', (code, signal) => resolve({ code, signal }));
  });
}

/** Waits for `promise` at most `ms`; true if it settled in time. Clears its timer so it never holds the process open. */
export async function finishesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((r) => {
    timer = setTimeout(() => r(false), ms);
  });
  try {
    return await Promise.race([promise.then(() => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Calls `onLine` for every non-blank line of a child's output stream. */
export function forwardLines(stream: Readable | null, onLine: (line: string) => void): void {
  if (stream === null) return;
  createInterface({ input: stream, crlfDelay: Infinity }).on('line', (line) => {
    if (line.trim() !== '') onLine(line);
  });
}

/** Keeps the last `max` lines, for error messages when a child dies. */
export function remember(tail: string[], line: string, max = 40): void {
  tail.push(line);
  if (tail.length > max) tail.shift();
}

// Structural on purpose: errors from Node built-ins fail `instanceof Error` inside Jest's sandboxed realm.
export function isErrnoException(err: unknown): err is NodeJS.ErrnoException {
  return typeof err === 'object' && err !== null && 'code' in err;
}
