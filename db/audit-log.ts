import type { Db } from './knex';

/** Who did something: an operator (dashboard or operator API), a merchant's user, or Skil itself. */
export interface AuditActor {
  kind: 'operator' | 'merchant_user' | 'system';
  id: string | null;
  /** Shown in the audit log and on the record it changed (e.g. "approved by"). */
  name: string;
}

export interface AuditEntry {
  actor: AuditActor;
  /** What was done, as `object.verb`: `settlement_run.approved`, `bank_exception.resolved`, … */
  action: string;
  objectType: string;
  objectId: string;
  livemode?: boolean | null;
  merchantId?: string | null;
  data?: Record<string, unknown>;
}

export interface AuditRow {
  id: string;
  livemode: boolean | null;
  actor_kind: AuditActor['kind'];
  actor_id: string | null;
  actor_name: string;
  action: string;
  object_type: string;
  object_id: string;
  merchant_id: string | null;
  data: Record<string, unknown>;
  created_at: Date;
}

/**
 * Writes one audit record. Call it with the transaction that makes the change, so the log has an
 * entry exactly when the change happened.
 */
export async function recordAudit(db: Db, entry: AuditEntry): Promise<void> {
  await db('audit_log').insert({
    livemode: entry.livemode ?? null,
    actor_kind: entry.actor.kind,
    actor_id: entry.actor.id,
    actor_name: entry.actor.name,
    action: entry.action,
    object_type: entry.objectType,
    object_id: entry.objectId,
    merchant_id: entry.merchantId ?? null,
    data: JSON.stringify(entry.data ?? {}),
  });
}

/** The newest records first, optionally for one object. */
export async function listAudit(
  db: Db,
  opts: { objectType?: string; objectId?: string; limit?: number } = {},
): Promise<AuditRow[]> {
  const query = db<AuditRow>('audit_log')
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .limit(opts.limit ?? 100);
  if (opts.objectType !== undefined) query.where({ object_type: opts.objectType });
  if (opts.objectId !== undefined) query.where({ object_id: opts.objectId });
  return query;
}
