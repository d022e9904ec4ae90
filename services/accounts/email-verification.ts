import type { Locale } from '../../domain/locale';
import { createUserRepository, type UserRow } from '../../db/users';
import { createAccountTokenRepository } from '../../db/account-tokens';
import { createMerchantRepository } from '../../db/merchants';
import { sendVerification, type AccountServiceDeps } from './sign-up';

/** Email verification (decision 0115): the link's token, single-use, proves the address it went to. */
export function createEmailVerificationService(deps: AccountServiceDeps) {
  const tokens = createAccountTokenRepository(deps.knex);
  const users = createUserRepository(deps.knex);

  return {
    /** The address a live link would verify, without using it (the page asks to confirm first). */
    async inspect(token: string): Promise<{ email: string } | null> {
      if (!/^[0-9A-Za-z]{43}$/.test(token)) return null;
      const row = await tokens.findLive(token, 'verify_email');
      return row ? { email: row.email } : null;
    },

    /** Uses the link: the address is verified if it is still the user's. */
    async verify(token: string): Promise<{ email: string } | null> {
      if (!/^[0-9A-Za-z]{43}$/.test(token)) return null;
      return deps.knex.transaction(async (trx) => {
        const row = await createAccountTokenRepository(trx).consume(token, 'verify_email');
        if (!row) return null;
        const still = await createUserRepository(trx).markEmailVerified(row.user_id, row.email);
        return still ? { email: row.email } : null;
      });
    },

    /** A new link for a signed-in user whose address is not verified yet; false if it did not go out. */
    async resend(user: UserRow, locale: Locale): Promise<boolean> {
      const fresh = await users.findById(user.id);
      if (!fresh || fresh.email_verified_at !== null || fresh.merchant_id === null) return true;
      const merchant = await createMerchantRepository(deps.knex).findById(fresh.merchant_id);
      return sendVerification(deps, fresh, merchant?.name ?? '', locale);
    },
  };
}

export type EmailVerificationService = ReturnType<typeof createEmailVerificationService>;
