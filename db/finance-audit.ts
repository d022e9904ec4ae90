import type { Db } from './knex';

/** The audit log as the finance pages list it. */

export interface AuditListRow {
  id: number;
  livemode: boolean | null;
  actor_kind: string;
  actor_name: string;
  action: string;
  object_type: string;
  object_id: string;
  created_at: Date;
}

export function createFinanceAuditRepository(db: Db) {
  return {
    /** The newest audit records of an environment, and those that belong to none. */
    async recentAudit(livemode: boolean, limit: number): Promise<AuditListRow[]> {
      return db('audit_log')
        .where((q) => {
          q.where({ livemode }).orWhereNull('livemode');
        })
        .orderBy([
          { column: 'created_at', order: 'desc' },
          { column: 'id', order: 'desc' },
        ])
        .limit(limit)
        .select(
          'id',
          'livemode',
          'actor_kind',
          'actor_name',
          'action',
          'object_type',
          'object_id',
          'created_at',
        );
    },
  };
}

export type FinanceAuditRepository = ReturnType<typeof createFinanceAuditRepository>;
