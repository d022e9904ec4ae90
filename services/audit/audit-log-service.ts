import type { Knex } from '../../db/knex';
import {
  createAuditLogRepository,
  objectOfId,
  type AuditEntryRow,
  type AuditFilter,
  type AuditObject,
} from '../../db/merchant-audit-log';
import { newId, ID_PREFIX } from '../../domain/ids';
import { redactChanges } from '../../domain/audit-redaction';
import type { AuditDraft } from '../../stack/audit-context';

export type { AuditEntryRow, AuditFilter };

/** Who made a write, from where, and what they asked for: the start of an audit entry. */
export interface WriteRequest {
  merchantId: string;
  livemode: boolean;
  actorType: AuditDraft['actorType'];
  actorId: string;
  clientAddress: string | null;
  requestId: string | null;
  action: string;
  body: unknown;
  /** The object the request's path (or tool call) names, if any. */
  pathObjectId: string | null;
}

/** The most rows one export holds. */
export const AUDIT_EXPORT_MAX = 10_000;

/**
 * The merchant's audit log (decision 0227). A write request opens a draft; every statement that
 * changes data carries it (db/merchant-audit-log.ts), in the change's transaction and with no round
 * trip of its own. A successful write that ran no such statement has its draft written alone.
 */
export function createAuditLogService(deps: { knex: Knex }) {
  const entries = createAuditLogRepository(deps.knex);
  return {
    draft(write: WriteRequest): AuditDraft {
      return {
        id: newId(ID_PREFIX.auditEntry),
        merchantId: write.merchantId,
        livemode: write.livemode,
        actorType: write.actorType,
        actorId: write.actorId,
        clientAddress: write.clientAddress,
        requestId: write.requestId,
        action: write.action,
        changes: redactChanges(write.body),
        pathObjectId: write.pathObjectId,
        attached: false,
      };
    },

    /**
     * After a successful write that ran no data-changing statement of its own (it started a
     * workflow, say): the draft is written now, about `object`.
     */
    async finish(draft: AuditDraft, object: AuditObject): Promise<void> {
      if (draft.attached) return;
      draft.attached = true;
      await entries.insert(draft, object.id ? objectOfId(object.id, object.type) : object);
    },

    list: (merchantId: string, filter: AuditFilter, page: { limit: number; before?: string | undefined }) =>
      entries.list(merchantId, filter, page),

    /** Every entry the filter selects, newest first, up to AUDIT_EXPORT_MAX. */
    async all(merchantId: string, filter: AuditFilter): Promise<AuditEntryRow[]> {
      return (await entries.list(merchantId, filter, { limit: AUDIT_EXPORT_MAX })).data;
    },

    pruneOld: () => entries.pruneOld(),
  };
}

export type AuditLogService = ReturnType<typeof createAuditLogService>;

/**
 * A CSV cell that a spreadsheet will not run as a formula: one that begins with `=`, `+`, `-`, `@`,
 * a tab or a carriage return gets a leading apostrophe (OWASP's CSV injection advice); every cell is
 * quoted, with its quotes doubled.
 */
export function csvCell(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return `"${safe.replace(/"/g, '""')}"`;
}

/** The log as CSV (RFC 4180, CRLF line ends), a header row first. */
export function auditCsv(rows: readonly AuditEntryRow[]): string {
  const header = [
    'id',
    'occurred_at',
    'mode',
    'actor_type',
    'actor_id',
    'client_address',
    'action',
    'object_type',
    'object_id',
    'changes',
    'request_id',
  ];
  const lines = [header.map(csvCell).join(',')];
  for (const r of rows) {
    lines.push(
      [
        r.id,
        r.occurred_at.toISOString(),
        r.livemode ? 'live' : 'test',
        r.actor_type,
        r.actor_id,
        r.client_address ?? '',
        r.action,
        r.object_type ?? '',
        r.object_id ?? '',
        JSON.stringify(r.changes),
        r.request_id ?? '',
      ]
        .map(csvCell)
        .join(','),
    );
  }
  return `${lines.join('\r\n')}\r\n`;
}
