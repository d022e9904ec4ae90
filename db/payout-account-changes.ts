import type { Db } from './knex';
import { newId, ID_PREFIX, randomBase62 } from '../domain/ids';
import { sha256 } from '../domain/device-codes';

export interface PayoutAccountChangeRow {
  id: string;
  merchant_id: string;
  previous_account: string | null;
  new_account: string;
  changed_by: string;
  client_address: string | null;
  created_at: Date;
  held_until: Date;
  confirm_token_hash: string;
  confirmed_at: Date | null;
}

/** Changes of merchants' payout accounts and the holds they put on payouts (decision 0228). */
export function createPayoutAccountChangeRepository(db: Db) {
  return {
    /**
     * Records a change in the caller's transaction, held for `holdDays` from now (0: not held), with
     * a new confirmation token returned once.
     */
    async create(
      input: {
        merchantId: string;
        previousAccount: string | null;
        newAccount: string;
        changedBy: string;
        clientAddress: string | null;
        holdDays: number;
      },
      trx: Db = db,
    ): Promise<{ row: PayoutAccountChangeRow; token: string }> {
      const token = randomBase62(43);
      const [row] = await trx<PayoutAccountChangeRow>('payout_account_changes')
        .insert({
          id: newId(ID_PREFIX.payoutAccountChange),
          merchant_id: input.merchantId,
          previous_account: input.previousAccount,
          new_account: input.newAccount,
          changed_by: input.changedBy,
          client_address: input.clientAddress,
          held_until: trx.raw(`now() + ? * interval '1 day'`, [input.holdDays]) as never,
          confirm_token_hash: sha256(token),
        })
        .returning('*');
      return { row: row!, token };
    },

    /** Whether the merchant's payout account was ever set before (a change is then held). */
    async hasHistory(merchantId: string, trx: Db = db): Promise<boolean> {
      const row: unknown = await trx('payout_account_changes').where({ merchant_id: merchantId }).first('id');
      return row !== undefined;
    },

    /**
     * The hold on payouts to `account`: the latest change of the merchant, when it set that account,
     * is unconfirmed and its hold has not run out.
     */
    async holdOn(
      merchantId: string,
      account: string,
      trx: Db = db,
    ): Promise<PayoutAccountChangeRow | undefined> {
      const latest = await trx<PayoutAccountChangeRow>('payout_account_changes')
        .where({ merchant_id: merchantId })
        .orderBy([
          { column: 'created_at', order: 'desc' },
          { column: 'id', order: 'desc' },
        ])
        .first();
      if (!latest || latest.new_account !== account || latest.confirmed_at !== null) return undefined;
      return latest.held_until.getTime() > Date.now() ? latest : undefined;
    },

    /** The change a token confirms, while it is the merchant's latest and unconfirmed. */
    async findByToken(token: string, trx: Db = db): Promise<PayoutAccountChangeRow | undefined> {
      return trx<PayoutAccountChangeRow>('payout_account_changes')
        .where({ confirm_token_hash: sha256(token) })
        .first();
    },

    /** Confirms a change once; null when it was already confirmed. */
    async confirm(id: string, trx: Db = db): Promise<PayoutAccountChangeRow | undefined> {
      const [row] = await trx<PayoutAccountChangeRow>('payout_account_changes')
        .where({ id })
        .whereNull('confirmed_at')
        .update({ confirmed_at: trx.fn.now() as never })
        .returning('*');
      return row;
    },
  };
}

export type PayoutAccountChangeRepository = ReturnType<typeof createPayoutAccountChangeRepository>;
