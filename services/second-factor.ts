import { randomBytes } from 'node:crypto';
import type { Knex } from '../db/knex';
import { createUserRepository, type SessionRow, type UserRow } from '../db/users';
import { createSecondFactorRepository } from '../db/second-factor';
import { recordAudit, type AuditActor } from '../db/audit-log';
import { SEALED_AT, type SecretBox } from '../domain/secret-box';
import { matchTotp, newTotpSecret, otpauthUri } from '../domain/totp';
import { sha256 } from '../domain/device-codes';
import { verifyPassword, PASSWORD_MAX_LENGTH } from '../domain/password';
import { ConflictError, InvalidRequestError, NotFoundError } from '../domain/errors';

/** Ten recovery codes at enrolment, each ten base32 characters (50 bits), shown once (decision 0220). */
export const RECOVERY_CODE_COUNT = 10;

/**
 * A sensitive action needs a full sign-in (password and second factor) this recent, in seconds
 * (decision 0222): long enough to finish what one set out to do, short enough that a session left
 * open on a shared computer cannot change where the money goes.
 */
export const REAUTH_WINDOW_SECONDS = 5 * 60;

/** The sign-in throttle shared with passwords (services/sign-in.ts): wrong codes count alike. */
export interface Throttle {
  maxFailures: number;
  windowSeconds: number;
  lockSeconds: number;
}

export type FactorResult =
  { ok: true; via: 'totp' | 'recovery_code' } | { ok: false; reason: 'invalid' | 'locked' };

/** A recovery code as stored: lower case, without spaces or hyphens, hashed. */
function recoveryHash(code: string): string {
  return sha256(`recovery:${code.toLowerCase().replace(/[\s-]/g, '')}`);
}

function newRecoveryCode(): string {
  const alphabet = 'abcdefghijkmnpqrstuvwxyz23456789';
  const bytes = randomBytes(10);
  const chars = [...bytes].map((b) => alphabet[b & 31]).join('');
  return `${chars.slice(0, 5)}-${chars.slice(5)}`;
}

/**
 * Members' second factors (decisions 0220-0222): TOTP enrolment and its codes, each taken once,
 * recovery codes, the merchant's requirement, the operator's reset, and re-authentication before
 * sensitive actions. Wrong codes count against the same lock as wrong passwords, keyed by address.
 */
export function createSecondFactorService(deps: {
  knex: Knex;
  secrets: SecretBox;
  throttle: Throttle;
  issuer?: string;
}) {
  const { knex, secrets, throttle } = deps;
  const issuer = deps.issuer ?? 'Skil';
  const users = createUserRepository(knex);
  const factors = createSecondFactorRepository(knex);
  const now = () => Math.floor(Date.now() / 1000);

  const openSecret = (row: { user_id: string; secret: string }) =>
    secrets.open(row.secret, SEALED_AT.totpSecret(row.user_id));

  /** Checks a TOTP code or a recovery code, without the throttle. */
  async function check(user: UserRow, code: string): Promise<FactorResult> {
    const typed = code.trim().replace(/\s/g, '');
    if (/^\d{6}$/.test(typed)) {
      const row = await factors.totpOf(user.id);
      if (row?.confirmed_at) {
        const step = matchTotp(openSecret(row), typed, now());
        if (step !== null && (await factors.acceptStep(user.id, step, false)))
          return { ok: true, via: 'totp' };
      }
      return { ok: false, reason: 'invalid' };
    }
    if (
      typed.length > 0 &&
      typed.length <= 40 &&
      (await factors.spendRecoveryCode(user.id, recoveryHash(typed)))
    )
      return { ok: true, via: 'recovery_code' };
    return { ok: false, reason: 'invalid' };
  }

  /** A code under the sign-in throttle: locked addresses are refused before the code is looked at. */
  async function throttledCheck(user: UserRow, code: string): Promise<FactorResult> {
    if (await users.isLocked(user.email)) return { ok: false, reason: 'locked' };
    const result = await check(user, code);
    if (result.ok) {
      await users.clearFailures(user.email);
      return result;
    }
    const row = await users.recordFailure(user.email, throttle);
    return { ok: false, reason: row.locked_until ? 'locked' : 'invalid' };
  }

  const service = {
    /** Whether the user has a confirmed second factor. */
    async hasFactor(userId: string): Promise<boolean> {
      return Boolean((await factors.totpOf(userId))?.confirmed_at);
    },

    /**
     * Whether the member must set up a second factor before anything else: none yet, and the
     * merchant requires one of every member, or the member owns a merchant that takes live money
     * (decision 0221).
     */
    async mustEnrol(user: UserRow): Promise<boolean> {
      if (user.kind !== 'merchant' || !user.merchant_id) return false;
      if (await service.hasFactor(user.id)) return false;
      const merchant = await factors.merchantSettings(user.merchant_id);
      if (!merchant) return false;
      return (
        merchant.require_second_factor ||
        (user.role === 'owner' && merchant.application_status === 'approved')
      );
    },

    /** What the security page shows of the member's own factors. */
    async status(userId: string): Promise<{ totp: boolean; recoveryCodesLeft: number }> {
      const [totp, left] = await Promise.all([factors.totpOf(userId), factors.recoveryCodesLeft(userId)]);
      return { totp: Boolean(totp?.confirmed_at), recoveryCodesLeft: left };
    },

    /**
     * Starts a TOTP enrolment, or shows the one under way: the secret (for typing in) and the
     * `otpauth://` URI (for the QR code). A confirmed enrolment is not replaced here.
     */
    async startTotp(user: UserRow): Promise<{ secret: string; uri: string }> {
      const existing = await factors.totpOf(user.id);
      if (existing?.confirmed_at)
        throw new ConflictError('An authenticator app is set up already', 'second_factor_exists');
      let secret: string;
      if (existing) {
        secret = openSecret(existing);
      } else {
        secret = newTotpSecret();
        if (!(await factors.startTotp(user.id, secrets.seal(secret, SEALED_AT.totpSecret(user.id)))))
          throw new ConflictError('An authenticator app is set up already', 'second_factor_exists');
      }
      return { secret, uri: otpauthUri(secret, issuer, user.email) };
    },

    /**
     * Confirms the enrolment with a first code from the app; returns the recovery codes, which
     * exist in plain text only in this answer. A wrong code leaves the enrolment waiting.
     */
    async confirmTotp(user: UserRow, code: string): Promise<string[] | null> {
      const row = await factors.totpOf(user.id);
      if (!row || row.confirmed_at) throw new NotFoundError('No enrolment is waiting for a code', 'code');
      const step = matchTotp(openSecret(row), code.trim().replace(/\s/g, ''), now());
      if (step === null) return null;
      const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
      const confirmed = await knex.transaction(async (trx) => {
        const repo = createSecondFactorRepository(trx);
        if (!(await repo.acceptStep(user.id, step, true, trx))) return false;
        await repo.replaceRecoveryCodes(user.id, codes.map(recoveryHash), trx);
        await createUserRepository(trx).releaseEnrolment(user.id, trx);
        return true;
      });
      return confirmed ? codes : null;
    },

    /** The sign-in's second step: a code from the app or a recovery code, then the session is signed in. */
    async completeSignIn(session: SessionRow, user: UserRow, code: string): Promise<FactorResult> {
      const result = await throttledCheck(user, code);
      if (result.ok) await users.completeSecondFactor(session.id);
      return result;
    },

    /** Whether the session's last full sign-in is recent enough for a sensitive action. */
    async recentlyAuthenticated(session: SessionRow): Promise<boolean> {
      return users.authenticatedWithin(session.id, REAUTH_WINDOW_SECONDS);
    },

    /**
     * Re-authentication: the password again and, for a member with a second factor, a code; both
     * under the sign-in throttle. The session counts as freshly signed in after it.
     */
    async reauthenticate(
      session: SessionRow,
      user: UserRow,
      password: string,
      code: string,
    ): Promise<{ ok: true } | { ok: false; reason: 'invalid' | 'locked' }> {
      if (await users.isLocked(user.email)) return { ok: false, reason: 'locked' };
      const passwordOk =
        password.length > 0 &&
        password.length <= PASSWORD_MAX_LENGTH * 4 &&
        (await verifyPassword(password, user.password_hash));
      if (!passwordOk) {
        const row = await users.recordFailure(user.email, throttle);
        return { ok: false, reason: row.locked_until ? 'locked' : 'invalid' };
      }
      if (await service.hasFactor(user.id)) {
        const result = await throttledCheck(user, code);
        if (!result.ok) return result;
      } else {
        await users.clearFailures(user.email);
      }
      await users.markAuthenticated(session.id);
      return { ok: true };
    },

    /** The merchant's second-factor settings, for its security page. */
    async merchantSettings(
      merchantId: string,
    ): Promise<{ requireSecondFactor: boolean; reauthRefundAbove: number }> {
      const row = await factors.merchantSettings(merchantId);
      if (!row) throw new NotFoundError(`No such merchant: '${merchantId}'`, 'id');
      return {
        requireSecondFactor: row.require_second_factor,
        reauthRefundAbove: Number(row.reauth_refund_above),
      };
    },

    /**
     * Sets the merchant's requirement and refund threshold. Requiring a second factor of every
     * member asks the member who sets it to have one, so the switch cannot lock the team out.
     */
    async setMerchantSettings(
      user: UserRow,
      values: { requireSecondFactor: boolean; reauthRefundAbove: number },
    ): Promise<void> {
      if (!user.merchant_id) throw new NotFoundError('No merchant', 'id');
      if (!Number.isSafeInteger(values.reauthRefundAbove) || values.reauthRefundAbove < 0)
        throw new InvalidRequestError('The refund amount must be a whole number of ISK, 0 or more', {
          code: 'parameter_invalid',
          param: 'reauth_refund_above',
        });
      if (values.requireSecondFactor && !(await service.hasFactor(user.id)))
        throw new ConflictError(
          'Set up a second factor for yourself before requiring one of every member',
          'second_factor_required',
          'require_second_factor',
        );
      await factors.setMerchantSettings(user.merchant_id, values);
    },

    /**
     * An operator's reset of a member's second factor (a lost phone and lost recovery codes): every
     * factor and session of the member is removed, and the operator audit log records who did it,
     * in the same transaction (decision 0221).
     */
    async resetByOperator(actor: AuditActor, email: string): Promise<UserRow> {
      return knex.transaction(async (trx) => {
        const target = await createUserRepository(trx).findByEmail(email, trx);
        if (!target || target.kind !== 'merchant')
          throw new NotFoundError(`No merchant member has the address '${email}'`, 'email');
        const removed = await createSecondFactorRepository(trx).removeAll(target.id, trx);
        if (!removed)
          throw new ConflictError('This member has no second factor', 'no_second_factor', 'email');
        await createUserRepository(trx).deleteSessionsOf(target.id, trx);
        await recordAudit(trx, {
          actor,
          action: 'user.second_factor_reset',
          objectType: 'user',
          objectId: target.id,
          merchantId: target.merchant_id,
          data: { email: target.email },
        });
        return target;
      });
    },
  };
  return service;
}

export type SecondFactorService = ReturnType<typeof createSecondFactorService>;
