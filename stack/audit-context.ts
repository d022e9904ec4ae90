import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The audit entry a write request will leave (decision 0227): who asked, from where, and what they
 * asked for, carried through the request's asynchronous work so that every statement that changes
 * data carries the entry with it (db/merchant-audit-log.ts). `attached` is set once a statement has
 * carried it; the id makes a second carrying (a retried transaction, a second statement) a no-op.
 */
export interface AuditDraft {
  id: string;
  merchantId: string;
  livemode: boolean;
  actorType: 'member' | 'api_key' | 'pos_device';
  actorId: string;
  clientAddress: string | null;
  requestId: string | null;
  /** The method and route: `POST /v1/customers`, `POST /dashboard/team/:id/role`. */
  action: string;
  /** The change asked for, secrets removed (redactChanges). */
  changes: Record<string, unknown>;
  /** The object the request's path names (`/v1/customers/cus_…`), if any. */
  pathObjectId: string | null;
  /** What the entry is about, fixed by the first statement that carries it. */
  object?: { type: string | null; id: string | null };
  attached: boolean;
}

const storage = new AsyncLocalStorage<AuditDraft>();

/** Runs the rest of a request with its audit draft. */
export function withAuditDraft<T>(draft: AuditDraft, fn: () => T): T {
  return storage.run(draft, fn);
}

/** The draft of the write request this code runs for, if any. */
export function currentAuditDraft(): AuditDraft | undefined {
  return storage.getStore();
}
