import type { Locale } from '../../domain/locale';
import type { Knex } from '../../db/knex';
import type { Logger } from '../../stack/logger';
import type { Mailer } from '../../adapters/mail/mailer';
import { createMerchantRepository } from '../../db/merchants';
import { createApiKeyRepository } from '../../db/api-keys';
import { createUserRepository, normalizeEmail, type UserRow } from '../../db/users';
import { createAccountTokenRepository } from '../../db/account-tokens';
import { hashPassword } from '../../domain/password';
import { SESSION_TTL_SECONDS } from '../sign-in';
import { verificationMail } from './account-mail';
import {
  businessNameIssue,
  emailIssue,
  isUniqueViolation,
  passwordIssue,
  type FieldIssue,
} from './account-input';

/** A verification link works for a week (decision 0115). */
export const VERIFY_EMAIL_TTL_SECONDS = 7 * 24 * 60 * 60;

export interface AccountServiceDeps {
  knex: Knex;
  mailer: Mailer;
  publicBaseUrl: string;
  log?: Logger | undefined;
}

export type SignUpResult =
  | { ok: false; issues: FieldIssue[] }
  | {
      ok: true;
      merchantId: string;
      user: UserRow;
      /** The test key, shown once on the page (stored only as its hash). */
      testKey: string;
      /** The dashboard session the new owner is signed in with. */
      sessionToken: string;
      /** Whether the verification email went out; if not, the dashboard offers to send it again. */
      mailSent: boolean;
    };

/** Sends a new verification link for the user's address, ending any earlier one. */
export async function sendVerification(
  deps: AccountServiceDeps,
  user: { id: string; email: string },
  merchantName: string,
  locale: Locale,
): Promise<boolean> {
  const tokens = createAccountTokenRepository(deps.knex);
  const { token } = await deps.knex.transaction(async (trx) => {
    await tokens.expireAll(user.id, 'verify_email', trx);
    return tokens.create(
      { userId: user.id, purpose: 'verify_email', email: user.email, ttlSeconds: VERIFY_EMAIL_TTL_SECONDS },
      trx,
    );
  });
  const link = `${deps.publicBaseUrl}/dashboard/verify-email?token=${token}`;
  try {
    await deps.mailer.send(verificationMail(locale, user.email, link, merchantName));
    return true;
  } catch (err) {
    deps.log?.error({ err, userId: user.id }, 'verification email not sent');
    return false;
  }
}

/**
 * Self-serve sign-up (decision 0115): one transaction makes the merchant, its owner and a
 * test key, and signs the owner in; test mode works at once. The verification email follows; until
 * its link is followed only the live application and team invitations wait.
 */
export function createSignUpService(deps: AccountServiceDeps) {
  const users = createUserRepository(deps.knex);

  return {
    async signUp(
      input: { businessName: string; email: string; password: string },
      locale: Locale,
    ): Promise<SignUpResult> {
      const issues = [
        businessNameIssue(input.businessName),
        emailIssue(input.email),
        passwordIssue(input.password),
      ].filter((i): i is FieldIssue => i !== null);
      if (issues.length > 0) return { ok: false, issues };
      const email = normalizeEmail(input.email);
      const taken: SignUpResult = { ok: false, issues: [{ param: 'email', code: 'email_taken' }] };
      if (await users.findByEmail(email)) return taken;
      const passwordHash = await hashPassword(input.password);
      const name = input.businessName.trim();
      let made;
      try {
        made = await deps.knex.transaction(async (trx) => {
          const merchant = await createMerchantRepository(trx).create({ name });
          const user = await createUserRepository(trx).create({
            kind: 'merchant',
            merchantId: merchant.id,
            email,
            passwordHash,
            role: 'owner',
            emailVerified: false,
          });
          const { secret } = await createApiKeyRepository(trx).create({
            merchantId: merchant.id,
            livemode: false,
          });
          const { token } = await createUserRepository(trx).createSession(user.id, SESSION_TTL_SECONDS);
          return { merchant, user, secret, sessionToken: token };
        });
      } catch (err) {
        // Two sign-ups with one address at once: the unique index lets one through.
        if (isUniqueViolation(err, 'users_email')) return taken;
        throw err;
      }
      const mailSent = await sendVerification(deps, made.user, name, locale);
      return {
        ok: true,
        merchantId: made.merchant.id,
        user: made.user,
        testKey: made.secret,
        sessionToken: made.sessionToken,
        mailSent,
      };
    },
  };
}

export type SignUpService = ReturnType<typeof createSignUpService>;
