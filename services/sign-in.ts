import type { Knex } from '../db/knex';
import { createUserRepository, type SessionOrigin, type SessionRow, type UserRow } from '../db/users';

export type { SessionOrigin, SessionRow, UserKind, UserRow } from '../db/users';
import { hashPassword, verifyPassword, PASSWORD_MAX_LENGTH } from '../domain/password';
import { randomBase62 } from '../domain/ids';
import type { Locale } from '../domain/locale';
import type { SecondFactorService } from './second-factor';

/** Five failures within 15 minutes lock the address for 15 minutes (docs/decisions/0016-dashboard-sign-in.md). */
export const SIGN_IN_POLICY = { maxFailures: 5, windowSeconds: 15 * 60, lockSeconds: 15 * 60 };
/** A dashboard session lasts 12 hours from sign-in. */
export const SESSION_TTL_SECONDS = 12 * 60 * 60;

/** A signed-in dashboard visit: the session and its user. */
export interface DashboardSession {
  session: SessionRow;
  user: UserRow;
}

/**
 * After the password: `second_factor` when the member has one to give before the session opens
 * anything, `enrol` when they must set one up first (decisions 0220, 0221), else `done`.
 */
export type SignInStep = 'done' | 'second_factor' | 'enrol';

export type SignInResult =
  | { ok: true; user: UserRow; session: SessionRow; token: string; step: SignInStep }
  | { ok: false; reason: 'invalid' | 'locked' };

/**
 * Dashboard sign-in and sessions. Unknown addresses cost the same key derivation as known ones and
 * are throttled alike, so neither timing nor lockout tells which addresses have accounts.
 */
export function createSignInService(
  knex: Knex,
  secondFactor?: Pick<SecondFactorService, 'hasFactor' | 'mustEnrol'>,
) {
  const users = createUserRepository(knex);
  let dummyHash: Promise<string> | undefined;

  return {
    async signIn(email: string, password: string, origin?: SessionOrigin): Promise<SignInResult> {
      if (await users.isLocked(email)) return { ok: false, reason: 'locked' };
      const user = await users.findByEmail(email);
      let valid = false;
      if (password.length > PASSWORD_MAX_LENGTH * 4) {
        valid = false;
      } else if (user && user.disabled_at === null) {
        valid = await verifyPassword(password, user.password_hash);
      } else {
        await verifyPassword(password, await (dummyHash ??= hashPassword(randomBase62(24))));
      }
      if (!valid || !user) {
        const row = await users.recordFailure(email, SIGN_IN_POLICY);
        return { ok: false, reason: row.locked_until ? 'locked' : 'invalid' };
      }
      await users.clearFailures(email);
      const step: SignInStep = !secondFactor
        ? 'done'
        : (await secondFactor.hasFactor(user.id))
          ? 'second_factor'
          : (await secondFactor.mustEnrol(user))
            ? 'enrol'
            : 'done';
      const { row: session, token } = await users.createSession(user.id, SESSION_TTL_SECONDS, knex, {
        origin,
        factorPending: step === 'second_factor',
        mustEnrol: step === 'enrol',
      });
      return { ok: true, user, session, token, step };
    },

    /** The live session of a cookie token, if any. */
    async findSession(token: string): Promise<DashboardSession | undefined> {
      return users.findSession(token);
    },

    async signOut(sessionId: string): Promise<void> {
      await users.deleteSession(sessionId);
    },

    /** The member's own sessions that have not expired (decision 0227). */
    async sessionsOf(userId: string): Promise<SessionRow[]> {
      return users.activeSessions(userId);
    },

    /** Ends one of the member's own sessions; false when it is not theirs. */
    async endSession(userId: string, sessionId: string): Promise<boolean> {
      return users.deleteOwnSession(userId, sessionId);
    },

    /**
     * Stores the language a signed-in user switched to, so every page on every browser they sign
     * in from speaks it (web/dashboard/language.ts).
     */
    async rememberLocale(userId: string, locale: Locale): Promise<void> {
      await users.setLocale(userId, locale);
    },
  };
}

export type SignInService = ReturnType<typeof createSignInService>;
