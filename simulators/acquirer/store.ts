import { mkdir, open, readFile, rename, writeFile, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { AcquirerDispute, Authorization, DisputeEvidence } from '../../adapters/acquirers/card-acquirer';
import type { Behaviour } from './test-cards';

/**
 * The simulated acquirer's own state (decision 0102): authorizations, refunds, stored answers of
 * idempotency keys and the keys that already failed once. It lives in memory and in two files of
 * the acquirer's data directory, never in Skil's database (decision 0074):
 *
 * - `acquirer-journal.jsonl`: one JSON line per change, appended (and awaited) before the HTTP
 *   answer goes out, so a change that was answered survives a restart or a crash of the process;
 * - `acquirer-state.json`: the compacted state, written at start (temporary name, then rename)
 *   from the previous state and the journal, after which the journal starts empty.
 *
 * Every journal line carries whole rows, so replaying a line twice (a crash between the rename and
 * the truncation) changes nothing. A torn last line (a crash mid-write) is ignored: its change was
 * never answered. Stored answers are kept for 24 hours, as an acquirer keeps idempotency keys.
 */

export interface StoredAuthorization extends Authorization {
  behaviour: Behaviour;
  return_url: string;
  created_at: string;
}

export interface StoredRefund {
  id: string;
  authorization: string;
  amount: number;
  created_at: string;
}

export interface StoredDispute extends AcquirerDispute {
  evidence: DisputeEvidence | null;
  /** The latest notification about it, delivered again by the test helper (decision 0155). */
  notification: string;
}

export interface StoredReply {
  status: number;
  body: unknown;
  at: string;
}

/** One change, written as one journal line. */
export interface Change {
  authorizations?: StoredAuthorization[];
  refunds?: StoredRefund[];
  disputes?: StoredDispute[];
  /** The answer stored for `{path}\n{idempotency key}`. */
  reply?: { slot: string } & StoredReply;
  /** An idempotency key whose first attempt failed (the processing-error test card), and when. */
  failedOnce?: { key: string; at: string };
}

interface Snapshot {
  version: 1;
  authorizations: StoredAuthorization[];
  refunds: StoredRefund[];
  disputes?: StoredDispute[];
  replies: [string, StoredReply][];
  failedOnce: [string, string][];
}

const STATE_FILE = 'acquirer-state.json';
const JOURNAL_FILE = 'acquirer-journal.jsonl';
const REPLY_TTL_MS = 24 * 60 * 60 * 1000;

/** Appends lines one batch at a time: changes that arrive during a write go out in the next one. */
class Journal {
  private queue: { line: string; done: (err?: Error) => void }[] = [];
  private writing: Promise<void> | null = null;

  constructor(private readonly file: FileHandle) {}

  append(change: Change): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({
        line: JSON.stringify(change) + '\n',
        done: (err) => (err ? reject(err) : resolve()),
      });
      this.writing ??= this.drain();
    });
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0);
      try {
        await this.file.appendFile(batch.map((b) => b.line).join(''));
        for (const b of batch) b.done();
      } catch (err) {
        for (const b of batch) b.done(err instanceof Error ? err : new Error(String(err)));
      }
    }
    this.writing = null;
  }

  async close(): Promise<void> {
    await this.writing;
    await this.file.close();
  }
}

export class AcquirerStore {
  private readonly authorizations = new Map<string, StoredAuthorization>();
  private readonly refunds = new Map<string, StoredRefund>();
  private readonly disputes = new Map<string, StoredDispute>();
  private readonly replies = new Map<string, StoredReply & { durable?: Promise<void> }>();
  private readonly failedOnce = new Map<string, string>();
  private journal: Journal | null = null;

  private constructor(private readonly dir: string) {}

  /** Loads the state and the journal of `dir` (created if missing), compacts them and opens a fresh journal. */
  static async open(dir: string, now = new Date()): Promise<AcquirerStore> {
    await mkdir(dir, { recursive: true });
    const store = new AcquirerStore(dir);
    const state = await readIfExists(path.join(dir, STATE_FILE));
    if (state !== null) {
      const s = JSON.parse(state) as Snapshot;
      for (const a of s.authorizations) store.authorizations.set(a.id, a);
      for (const r of s.refunds) store.refunds.set(r.id, r);
      for (const d of s.disputes ?? []) store.disputes.set(d.id, d);
      for (const [slot, reply] of s.replies) store.replies.set(slot, reply);
      for (const [key, at] of s.failedOnce) store.failedOnce.set(key, at);
    }
    const journal = await readIfExists(path.join(dir, JOURNAL_FILE));
    for (const line of (journal ?? '').split('\n')) {
      if (line === '') continue;
      let change: Change;
      try {
        change = JSON.parse(line) as Change;
      } catch {
        continue; // a torn last line: that change was never answered
      }
      store.apply(change);
    }
    store.forgetOldAnswers(now);
    const file = path.join(dir, STATE_FILE);
    await writeFile(`${file}.tmp`, JSON.stringify(store.snapshot()));
    await rename(`${file}.tmp`, file);
    // 'w' truncates: everything the journal held is in the state file now.
    store.journal = new Journal(await open(path.join(dir, JOURNAL_FILE), 'w'));
    return store;
  }

  authorization(id: string): StoredAuthorization | undefined {
    return this.authorizations.get(id);
  }

  dispute(id: string): StoredDispute | undefined {
    return this.disputes.get(id);
  }

  /** Every dispute, oldest first (the test helpers' list). */
  allDisputes(): StoredDispute[] {
    return [...this.disputes.values()];
  }

  /**
   * The stored answer of an idempotency slot, looked up synchronously so that a request can check
   * and then change the state in the same turn of the event loop; `durable` resolves once the answer
   * is on disk (a replay waits for it before answering).
   */
  reply(slot: string): (StoredReply & { durable?: Promise<void> }) | undefined {
    return this.replies.get(slot);
  }

  hasFailedOnce(key: string): boolean {
    return this.failedOnce.has(key);
  }

  /**
   * Applies a change in memory at once (so the next request sees it) and resolves when its journal
   * line is written. The caller answers only after that.
   */
  commit(change: Change): Promise<void> {
    if (!this.journal) return Promise.reject(new Error('the acquirer store is closed'));
    const durable = this.journal.append(change);
    this.apply(change, durable);
    return durable;
  }

  async close(): Promise<void> {
    const j = this.journal;
    this.journal = null;
    await j?.close();
  }

  private apply(change: Change, durable?: Promise<void>): void {
    for (const a of change.authorizations ?? []) this.authorizations.set(a.id, a);
    for (const r of change.refunds ?? []) this.refunds.set(r.id, r);
    for (const d of change.disputes ?? []) this.disputes.set(d.id, d);
    if (change.reply) {
      const { slot, ...reply } = change.reply;
      this.replies.set(slot, durable ? { ...reply, durable: durable.catch(() => undefined) } : reply);
    }
    if (change.failedOnce) this.failedOnce.set(change.failedOnce.key, change.failedOnce.at);
  }

  private forgetOldAnswers(now: Date): void {
    const oldest = now.getTime() - REPLY_TTL_MS;
    for (const [slot, r] of this.replies) if (Date.parse(r.at) < oldest) this.replies.delete(slot);
    for (const [key, at] of this.failedOnce) if (Date.parse(at) < oldest) this.failedOnce.delete(key);
  }

  private snapshot(): Snapshot {
    return {
      version: 1,
      authorizations: [...this.authorizations.values()],
      refunds: [...this.refunds.values()],
      disputes: [...this.disputes.values()],
      replies: [...this.replies].map(([slot, { status, body, at }]) => [slot, { status, body, at }]),
      failedOnce: [...this.failedOnce],
    };
  }

  /** For messages and tests: where the state lives. */
  get directory(): string {
    return this.dir;
  }
}

async function readIfExists(file: string): Promise<string | null> {
  return readFile(file, 'utf8').catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return null;
    throw err;
  });
}
