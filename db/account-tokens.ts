import type { Db } from './knex';
import { randomBase62 } from '../domain/ids';
import { sha256 } from '../domain/device-codes';
import { normalizeEmail } from './users';

export type AccountTokenPurpose = 'verify_email' | 'reset_password';

export interface AccountTokenRow {
  id: string;
  user_id: string;
  purpose: AccountTokenPurpose;
  token_hash: string;
  email: string;
  created_at: Date;
  expires_at: Date;
  used_at: Date | null;
}

/**
 * Single-use tokens mailed to a user (email verification, password reset; decision 0116): the link
 * holds a random token, the table only its SHA-256, so a read of the table opens no account.
 */
export function createAccountTokenRepository(db: Db) {
  const live = (trx: Db, token: string, purpose: AccountTokenPurpose) =>
    trx<AccountTokenRow>('account_tokens')
      .where({ token_hash: sha256(token), purpose })
      .whereNull('used_at')
      .where('expires_at', '>', trx.fn.now());

  return {
    /** A new token; returned once. */
    async create(
      input: { userId: string; purpose: AccountTokenPurpose; email: string; ttlSeconds: number },
      trx: Db = db,
    ): Promise<{ row: AccountTokenRow; token: string }> {
      const token = randomBase62(43);
      const [row] = await trx<AccountTokenRow>('account_tokens')
        .insert({
          id: `atok_${randomBase62(20)}`,
          user_id: input.userId,
          purpose: input.purpose,
          token_hash: sha256(token),
          email: normalizeEmail(input.email),
          expires_at: trx.raw(`now() + ? * interval '1 second'`, [input.ttlSeconds]) as never,
        })
        .returning('*');
      return { row: row!, token };
    },

    /** The token's row while it is unused and unexpired, without using it (to show its form). */
    async findLive(token: string, purpose: AccountTokenPurpose, trx: Db = db) {
      return live(trx, token, purpose).first();
    },

    /** Uses the token: of any number of concurrent calls, one gets the row, the others nothing. */
    async consume(token: string, purpose: AccountTokenPurpose, trx: Db = db) {
      const [row] = await live(trx, token, purpose).update({ used_at: trx.fn.now() }).returning('*');
      return row;
    },

    /** Ends every unused token of the user for a purpose (a reset done, a new link sent). */
    async expireAll(userId: string, purpose: AccountTokenPurpose, trx: Db = db): Promise<void> {
      await trx('account_tokens')
        .where({ user_id: userId, purpose })
        .whereNull('used_at')
        .update({ used_at: trx.fn.now() });
    },
  };
}

export type AccountTokenRepository = ReturnType<typeof createAccountTokenRepository>;
