import type { Db } from './knex';
import { currentAuditDraft, type AuditDraft } from '../stack/audit-context';
import { ID_PREFIX } from '../domain/ids';

/** How long audit entries are kept (decision 0227); the table's trigger refuses deleting younger ones. */
export const AUDIT_RETENTION_DAYS = 730;

export interface AuditEntryRow {
  id: string;
  merchant_id: string;
  livemode: boolean;
  occurred_at: Date;
  actor_type: AuditDraft['actorType'];
  actor_id: string;
  client_address: string | null;
  request_id: string | null;
  action: string;
  object_type: string | null;
  object_id: string | null;
  changes: Record<string, unknown>;
}

const COLUMNS =
  'id, merchant_id, livemode, actor_type, actor_id, client_address, request_id, action, object_type, object_id, changes';

const INSERT_SQL = `insert into merchant_audit_entries (${COLUMNS})
  values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb)
  on conflict (id) do nothing`;

/** What an entry is about: the object's type (from its id's prefix, else the table) and id. */
export interface AuditObject {
  type: string | null;
  id: string | null;
}

function bindings(draft: AuditDraft, object: AuditObject): unknown[] {
  return [
    draft.id,
    draft.merchantId,
    draft.livemode,
    draft.actorType,
    draft.actorId,
    draft.clientAddress,
    draft.requestId,
    draft.action,
    object.type,
    object.id,
    JSON.stringify(draft.changes),
  ];
}

const PREFIX_TYPE = new Map<string, string>(
  Object.entries(ID_PREFIX).map(([type, prefix]) => [
    prefix,
    type.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`),
  ]),
);

/** The object an id names, its type read from the id's prefix (`cus_…` is a customer). */
export function objectOfId(id: string | null, fallbackType: string | null = null): AuditObject {
  if (id === null) return { type: fallbackType, id: null };
  const prefix = /^([a-z]+)_/.exec(id)?.[1];
  return { type: (prefix && PREFIX_TYPE.get(prefix)) ?? fallbackType, id };
}

/** A data-changing statement and its table: `insert into "t"`, `update "t"`, `delete from "t"`. */
const WRITE = /^\s*(?:insert\s+into|update|delete\s+from)\s+"?([a-z_]+)"?/i;
/** A statement with a CTE list whose body changes data. */
const WITH = /^\s*with\s+(?:recursive\s+)?/i;
const WRITE_INSIDE = /\b(?:insert\s+into|update|delete\s+from)\s+"?([a-z_]+)"?/i;
/**
 * Tables whose writes are the machinery's, not the merchant's change: the idempotency store, the
 * rate limiter's counters and key sightings, the sign-in throttle, and the log itself.
 */
const BOOKKEEPING = new Set([
  'idempotency_keys',
  'rate_limit_counters',
  'api_key_sightings',
  'sign_in_throttle',
  'merchant_audit_entries',
]);

/** For `insert into "t" ("a", "id", …) values ($1, $2, …)` (knex's shape): the id inserted. */
function insertedId(sql: string, values: readonly unknown[]): string | null {
  const cols = /^\s*insert\s+into\s+"?[a-z_]+"?\s*\(([^)]*)\)\s*values\s*\(([^)]*)\)/i.exec(sql);
  if (!cols) return null;
  const names = cols[1]!.split(',').map((c) => c.trim().replace(/"/g, ''));
  const slots = cols[2]!.split(',').map((v) => v.trim());
  const at = names.indexOf('id');
  const slot = at >= 0 ? /^\$(\d+)$/.exec(slots[at] ?? '') : null;
  const value = slot ? values[Number(slot[1]) - 1] : undefined;
  return typeof value === 'string' ? value : null;
}

/**
 * Puts the audit entry of the write request this statement runs for in front of it, as a writable
 * CTE (decision 0227): the entry commits or rolls back with the change, in its transaction, and
 * costs no round trip of its own. Every data-changing statement of the request carries it (the id
 * makes every carrying after the first that commits a no-op), so a transaction that is rolled back
 * and retried still leaves it. Statements outside a write request, reads and the machinery's own
 * tables are left as they are. The object is the one the request's path names, else the first row
 * the request inserts.
 */
export function withAuditEntry(query: { sql: string; bindings?: readonly unknown[] }): void {
  const draft = currentAuditDraft();
  if (!draft) return;
  const sql = query.sql;
  const withList = WITH.exec(sql);
  const table = (
    withList ? WRITE_INSIDE.exec(sql.slice(withList[0].length)) : WRITE.exec(sql)
  )?.[1]?.toLowerCase();
  if (!table || BOOKKEEPING.has(table)) return;
  const values = query.bindings ?? [];
  draft.object ??= draft.pathObjectId
    ? objectOfId(draft.pathObjectId)
    : objectOfId(insertedId(sql, values), table);
  draft.attached = true;
  const n = values.length;
  const slots = Array.from({ length: 11 }, (_, i) => `$${n + i + 1}`);
  slots[10] = `${slots[10]}::jsonb`;
  const cte = `merchant_audit_entry as (insert into merchant_audit_entries (${COLUMNS}) values (${slots.join(', ')}) on conflict (id) do nothing)`;
  query.sql = withList ? `${withList[0]}${cte}, ${sql.slice(withList[0].length)}` : `with ${cte} ${sql}`;
  query.bindings = [...values, ...bindings(draft, draft.object)];
}

export interface AuditFilter {
  /** Entries at or after / before these times. */
  from?: Date | undefined;
  to?: Date | undefined;
  actorId?: string | undefined;
  objectId?: string | undefined;
  /** Words of the action (`POST /v1/customers`). */
  action?: string | undefined;
}

/** The audit log's rows: written by the CTE above or, for a write that ran no statement, alone. */
export function createAuditLogRepository(db: Db) {
  return {
    /** Writes a draft by itself (a write that ran no statement of its own); one already written is left. */
    async insert(draft: AuditDraft, object: AuditObject, trx: Db = db) {
      await trx.raw(INSERT_SQL, bindings(draft, object) as never[]);
    },

    /**
     * A merchant's entries, newest first, both modes (the log is the merchant's, as its team is;
     * decision 0227). `before` (an entry's id) continues after the last entry of a page.
     */
    async list(
      merchantId: string,
      filter: AuditFilter,
      page: { limit: number; before?: string | undefined },
    ): Promise<{ data: AuditEntryRow[]; hasMore: boolean }> {
      const q = db<AuditEntryRow>('merchant_audit_entries')
        .where({ merchant_id: merchantId })
        .orderBy([
          { column: 'occurred_at', order: 'desc' },
          { column: 'id', order: 'desc' },
        ])
        .limit(page.limit + 1);
      if (filter.from) q.where('occurred_at', '>=', filter.from);
      if (filter.to) q.where('occurred_at', '<', filter.to);
      if (filter.actorId) q.where('actor_id', filter.actorId);
      if (filter.objectId) q.where('object_id', filter.objectId);
      if (filter.action) q.whereRaw('position(lower(?) in lower(action)) > 0', [filter.action]);
      if (page.before)
        q.whereRaw(
          '(occurred_at, id) < (select occurred_at, id from merchant_audit_entries where id = ? and merchant_id = ?)',
          [page.before, merchantId],
        );
      const rows = await q;
      return { data: rows.slice(0, page.limit), hasMore: rows.length > page.limit };
    },

    /** Deletes entries older than the retention period; returns how many. */
    async pruneOld(): Promise<number> {
      return db('merchant_audit_entries')
        .whereRaw(`occurred_at < now() - ? * interval '1 day'`, [AUDIT_RETENTION_DAYS + 1])
        .delete();
    },
  };
}

export type AuditLogRepository = ReturnType<typeof createAuditLogRepository>;
