import type { Knex } from '../../db/knex';
import type { Logger } from '../../stack/logger';
import { createSettlementRunRepository } from '../../db/settlement-runs';
import { createPayoutRepository } from '../../db/payouts';
import { recordAudit } from '../../db/audit-log';
import { scopeOf, type RunKey } from './settlement-run-ref';

/**
 * Marks an approved or submitted run (and its payout, if written and not sent) failed with a
 * reason operators can act on, audited, in one transaction (decision 0093).
 */
export function createSettlementRunFailure(deps: { knex: Knex; log: Logger }) {
  const runs = createSettlementRunRepository(deps.knex);
  const payouts = createPayoutRepository(deps.knex);

  return async function failRun(key: RunKey, reason: string): Promise<'failed'> {
    const scope = scopeOf(key);
    await deps.knex.transaction(async (trx) => {
      const now = new Date();
      const failed = await runs.transition(
        scope,
        key.runId,
        ['approved', 'submitted'],
        { status: 'failed', failed_at: now, failure_reason: reason },
        trx,
      );
      await payouts.failUnsent(scope, key.runId, reason, now, trx);
      if (failed)
        await recordAudit(trx, {
          actor: { kind: 'system', id: null, name: 'settlement' },
          action: 'settlement_run.failed',
          objectType: 'settlement_run',
          objectId: key.runId,
          livemode: key.livemode,
          merchantId: key.merchantId,
          data: { reason },
        });
    });
    deps.log.warn({ runId: key.runId, reason }, 'settlement run failed');
    return 'failed' as const;
  };
}

export type SettlementRunFailure = ReturnType<typeof createSettlementRunFailure>;
