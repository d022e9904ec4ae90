import type { Locale } from '../../domain/locale';
import { createUserRepository, normalizeEmail } from '../../db/users';
import { createAccountTokenRepository } from '../../db/account-tokens';
import { hashPassword } from '../../domain/password';
import { passwordResetMail } from './account-mail';
import { emailIssue, passwordIssue, type FieldIssue } from './account-input';
import type { AccountServiceDeps } from './sign-up';

/** A reset link works for one hour, once (decision 0116). */
export const RESET_PASSWORD_TTL_SECONDS = 60 * 60;

export type ResetResult = { ok: true; email: string } | { ok: false; issues: FieldIssue[] };

/**
 * Password reset by email (decision 0116). Asking answers the same whether or not the address has
 * an account, and as fast: the lookup and the mail run after the answer. The link's token is
 * single-use, expires in an hour and is stored as its hash; using it ends every session of the user.
 */
export function createPasswordResetService(deps: AccountServiceDeps) {
  const users = createUserRepository(deps.knex);
  const tokens = createAccountTokenRepository(deps.knex);
  const validToken = (token: string) => /^[0-9A-Za-z]{43}$/.test(token);

  async function sendLink(email: string, locale: Locale): Promise<void> {
    const user = await users.findByEmail(email);
    if (!user || user.disabled_at !== null) return;
    const { token } = await deps.knex.transaction(async (trx) => {
      await tokens.expireAll(user.id, 'reset_password', trx);
      return tokens.create(
        {
          userId: user.id,
          purpose: 'reset_password',
          email: user.email,
          ttlSeconds: RESET_PASSWORD_TTL_SECONDS,
        },
        trx,
      );
    });
    const link = `${deps.publicBaseUrl}/dashboard/reset-password?token=${token}`;
    await deps.mailer.send(passwordResetMail(locale, user.email, link));
  }

  return {
    /**
     * Starts a reset for `email`, if it has an account; resolves at once either way (the work goes
     * on after, logged on failure). Returns an issue only for an address that is not one.
     */
    request(email: string, locale: Locale): { ok: true } | { ok: false; issues: FieldIssue[] } {
      const issue = emailIssue(email);
      if (issue) return { ok: false, issues: [issue] };
      void sendLink(normalizeEmail(email), locale).catch((err: unknown) =>
        deps.log?.error({ err }, 'password reset email not sent'),
      );
      return { ok: true };
    },

    /** Whether a link's token is live (the page shows the new-password form only then). */
    async inspect(token: string): Promise<boolean> {
      return validToken(token) && (await tokens.findLive(token, 'reset_password')) !== undefined;
    },

    async reset(token: string, password: string): Promise<ResetResult> {
      const issue = passwordIssue(password);
      if (issue) return { ok: false, issues: [issue] };
      if (!validToken(token)) return { ok: false, issues: [{ param: 'token', code: 'token_invalid' }] };
      const passwordHash = await hashPassword(password);
      const done = await deps.knex.transaction(async (trx) => {
        const row = await createAccountTokenRepository(trx).consume(token, 'reset_password');
        if (!row) return null;
        const repo = createUserRepository(trx);
        await repo.setPassword(row.user_id, passwordHash);
        await repo.deleteSessionsOf(row.user_id);
        await createAccountTokenRepository(trx).expireAll(row.user_id, 'reset_password');
        // The link reached the address, so the address is the user's.
        await repo.markEmailVerified(row.user_id, row.email);
        await repo.clearFailures(row.email);
        return row;
      });
      return done
        ? { ok: true, email: done.email }
        : { ok: false, issues: [{ param: 'token', code: 'token_invalid' }] };
    },
  };
}

export type PasswordResetService = ReturnType<typeof createPasswordResetService>;
