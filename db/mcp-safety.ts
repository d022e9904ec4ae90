import type { Db } from './knex';
import type { Scope } from '../domain/scope';

/** Today in Reykjavik, as the day a key's refund limits count (decision 0122). */
const TODAY = `(now() at time zone 'Atlantic/Reykjavik')::date`;

export interface RefundUsage {
  refund_count: number;
  refund_amount: number;
}

export interface ConfirmationRow {
  id: string;
  merchant_id: string;
  livemode: boolean;
  api_key_id: string;
  token_hash: string;
  tool: string;
  request_hash: string;
  /** What it confirms: a payment intent, subscription or claim, or the customer a new one is for. */
  object_id: string | null;
  /** The ISK the confirmed call moves or withholds. */
  amount: number;
  expires_at: Date;
  created_at: Date;
}

/** Agent safety of the MCP tools: each key's refunds per day, and confirmation tokens (decision 0202). */
export function createMcpSafetyRepository(db: Db) {
  return {
    /**
     * Counts one refund of `amount` against the key's day, if it stays within both limits. The
     * upsert holds the key's row for the rest of the caller's transaction, so concurrent refunds by
     * one key queue and each sees the others' counts; a rolled-back refund takes its count back.
     */
    async reserveRefund(
      trx: Db,
      scope: Scope,
      input: { apiKeyId: string; amount: number; maxCount: number; maxAmount: number },
    ): Promise<boolean> {
      const { rows } = await trx.raw<{ rows: unknown[] }>(
        `insert into mcp_refund_usage (api_key_id, day, merchant_id, livemode, refund_count, refund_amount)
         select ?, ${TODAY}, ?, ?, 1, ?::bigint
          where 1 <= ? and ?::bigint <= ?::bigint
         on conflict (api_key_id, day) do update
           set refund_count = mcp_refund_usage.refund_count + 1,
               refund_amount = mcp_refund_usage.refund_amount + excluded.refund_amount
           where mcp_refund_usage.refund_count + 1 <= ?
             and mcp_refund_usage.refund_amount + excluded.refund_amount <= ?::bigint
         returning api_key_id`,
        [
          input.apiKeyId,
          scope.merchantId,
          scope.livemode,
          input.amount,
          input.maxCount,
          input.amount,
          input.maxAmount,
          input.maxCount,
          input.maxAmount,
        ],
      );
      return rows.length > 0;
    },

    /** What the key has refunded through the tools today. */
    async refundUsage(apiKeyId: string, trx: Db = db): Promise<RefundUsage> {
      const row = await trx<RefundUsage & { api_key_id: string }>('mcp_refund_usage')
        .where({ api_key_id: apiKeyId })
        .whereRaw(`day = ${TODAY}`)
        .first('refund_count', 'refund_amount');
      return row ?? { refund_count: 0, refund_amount: 0 };
    },

    async insertConfirmation(
      row: Omit<ConfirmationRow, 'created_at' | 'expires_at'> & { ttlSeconds: number },
      trx: Db = db,
    ): Promise<ConfirmationRow> {
      const { ttlSeconds, ...values } = row;
      const [inserted] = await trx<ConfirmationRow>('mcp_confirmations')
        .insert({
          ...values,
          expires_at: trx.raw(`now() + (? * interval '1 second')`, [ttlSeconds]) as never,
        })
        .returning('*');
      return inserted!;
    },

    /** The confirmation with this token hash in the scope, expired or not. */
    async findConfirmation(
      scope: Scope,
      tokenHash: string,
      trx: Db = db,
    ): Promise<ConfirmationRow | undefined> {
      return trx<ConfirmationRow>('mcp_confirmations')
        .where({ token_hash: tokenHash, merchant_id: scope.merchantId, livemode: scope.livemode })
        .first();
    },

    /** Whether a confirmation's time has run out, by the database's clock. */
    async isExpired(id: string, trx: Db = db): Promise<boolean> {
      const row = await trx('mcp_confirmations')
        .where({ id })
        .first<{ expired: boolean } | undefined>(trx.raw('expires_at <= now() as expired'));
      return row?.expired ?? true;
    },

    /** Forgets a key's confirmations that expired a day ago or more (kept that long for a clear error). */
    async purgeExpiredConfirmations(apiKeyId: string, trx: Db = db): Promise<void> {
      await trx('mcp_confirmations')
        .where({ api_key_id: apiKeyId })
        .where('expires_at', '<', trx.raw(`now() - interval '1 day'`))
        .delete();
    },
  };
}

export type McpSafetyRepository = ReturnType<typeof createMcpSafetyRepository>;
