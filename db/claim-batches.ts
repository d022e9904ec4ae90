import type { Db, Knex } from './knex';
import type { ClaimRow } from './claims';
import { sqlArgs } from './event-batch';

/**
 * Claims on their way to the bank: collected into batches per environment, marked issued or
 * refused from the batch's result. A batch spans the merchants of one environment, so these are
 * scoped by `livemode` (and by the batch or the bank's claim ids), not by merchant.
 */
export function createClaimBatchRepository(db: Db) {
  return {
    /**
     * Takes pending claims of an environment into a batch (at most `limit`, oldest first), taking
     * over claims of a batch untouched for an hour, and returns the ids of every claim of the batch
     * still waiting to be issued.
     */
    async collect(
      input: { livemode: boolean; batchKey: string; limit: number },
      trx: Db = db,
    ): Promise<string[]> {
      await trx.raw(
        `update claims set batch_key = ?, updated_at = now()
          where id in (select id from claims
                        where status = 'pending' and livemode = ? and bank_error is null
                          and (batch_key is null or updated_at < now() - interval '1 hour')
                        order by created_at, id limit ? for update skip locked)`,
        sqlArgs(input.batchKey, input.livemode, input.limit),
      );
      const rows = await trx<ClaimRow>('claims')
        .where({ batch_key: input.batchKey, status: 'pending' })
        .whereNull('bank_error')
        .orderBy('id')
        .select('id');
      return rows.map((r) => r.id);
    },

    /** The claims of a batch, by id. */
    async listByIds(ids: readonly string[], trx: Db = db): Promise<ClaimRow[]> {
      return trx<ClaimRow>('claims').whereIn('id', ids).orderBy('id');
    },

    /** Marks pending claims issued, by bank claim id; the claims it changed. */
    async markIssued(bankClaimIds: readonly string[], trx: Knex.Transaction): Promise<ClaimRow[]> {
      return trx<ClaimRow>('claims')
        .whereIn('bank_claim_id', bankClaimIds)
        .where({ status: 'pending' })
        .update({ status: 'issued', issued_at: new Date(), bank_error: null, updated_at: new Date() })
        .returning('*');
    },

    /**
     * Records the bank's refusal on a pending claim (it leaves the batches until mended); the claim
     * the first time, undefined when the refusal was already recorded (a retried result read).
     */
    async recordBankError(
      bankClaimId: string,
      error: { code: string | null; message: string },
      trx: Db = db,
    ): Promise<ClaimRow | undefined> {
      const [row] = await trx<ClaimRow>('claims')
        .where({ bank_claim_id: bankClaimId, status: 'pending' })
        .whereNull('bank_error')
        .update({
          bank_error: JSON.stringify({ code: error.code, message: error.message }) as never,
          updated_at: new Date(),
        })
        .returning('*');
      return row;
    },
  };
}

export type ClaimBatchRepository = ReturnType<typeof createClaimBatchRepository>;
