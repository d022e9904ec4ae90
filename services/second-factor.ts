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
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type AuthenticatorTransportFuture,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
} from '@simplewebauthn/server';

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

/**
 * The relying party of passkeys: the public address's host and origin. WebAuthn refuses IP
 * addresses, so a loopback address (development, tests) is named `localhost` on the same port,
 * which browsers treat as secure too (decision 0223).
 */
export function passkeyParty(publicBaseUrl: string): { rpID: string; origin: string } {
  const url = new URL(publicBaseUrl);
  if (url.hostname === '127.0.0.1' || url.hostname === '[::1]') url.hostname = 'localhost';
  return { rpID: url.hostname, origin: url.origin };
}

export type FactorResult =
  { ok: true; via: 'totp' | 'recovery_code' | 'passkey' } | { ok: false; reason: 'invalid' | 'locked' };

/** The outline of a WebAuthn answer as the page posts it; the library checks the rest. */
function isCredentialJson(value: unknown): value is { id: string; response: object } {
  const v = value as { id?: unknown; response?: unknown } | null;
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof v.id === 'string' &&
    v.id.length <= 1400 &&
    typeof v.response === 'object'
  );
}

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
  publicBaseUrl: string;
  issuer?: string;
}) {
  const { knex, secrets, throttle } = deps;
  const party = passkeyParty(deps.publicBaseUrl);
  const issuer = deps.issuer ?? 'Skil';
  const users = createUserRepository(knex);
  const factors = createSecondFactorRepository(knex);
  const now = () => Math.floor(Date.now() / 1000);

  const openSecret = (row: { user_id: string; secret: string }) =>
    secrets.open(row.secret, SEALED_AT.totpSecret(row.user_id));

  /** Whether the browser's answer proves the session's challenge with one of the user's passkeys. */
  async function verifyPasskey(session: SessionRow, user: UserRow, response: unknown): Promise<boolean> {
    const challenge = await factors.takeChallenge(session.id);
    if (!challenge || !isCredentialJson(response)) return false;
    const passkey = (await factors.passkeysOf(user.id)).find((p) => p.id === response.id);
    if (!passkey) return false;
    const verified = await verifyAuthenticationResponse({
      response: response as unknown as AuthenticationResponseJSON,
      expectedChallenge: challenge,
      expectedOrigin: party.origin,
      expectedRPID: party.rpID,
      credential: {
        id: passkey.id,
        publicKey: new Uint8Array(passkey.public_key),
        counter: Number(passkey.counter),
        transports: passkey.transports as AuthenticatorTransportFuture[],
      },
      requireUserVerification: false,
    }).catch(() => null);
    if (!verified?.verified) return false;
    return factors.usePasskey(passkey.id, user.id, verified.authenticationInfo.newCounter);
  }

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
    async status(userId: string): Promise<{ totp: boolean; recoveryCodesLeft: number; passkeys: number }> {
      const [totp, left, passkeys] = await Promise.all([
        factors.totpOf(userId),
        factors.recoveryCodesLeft(userId),
        factors.passkeysOf(userId),
      ]);
      return { totp: Boolean(totp?.confirmed_at), recoveryCodesLeft: left, passkeys: passkeys.length };
    },

    /**
     * Options for adding a passkey, its challenge kept on the session. A passkey comes beside the
     * authenticator app, whose recovery codes cover both (decision 0223).
     */
    async passkeyRegistrationOptions(
      session: SessionRow,
      user: UserRow,
    ): Promise<PublicKeyCredentialCreationOptionsJSON> {
      if (!(await service.hasFactor(user.id)))
        throw new ConflictError(
          'Set up an authenticator app before adding a passkey',
          'second_factor_required',
        );
      const existing = await factors.passkeysOf(user.id);
      const options = await generateRegistrationOptions({
        rpName: issuer,
        rpID: party.rpID,
        userName: user.email,
        userID: new TextEncoder().encode(user.id),
        attestationType: 'none',
        excludeCredentials: existing.map((p) => ({
          id: p.id,
          transports: p.transports as AuthenticatorTransportFuture[],
        })),
        authenticatorSelection: { residentKey: 'preferred', userVerification: 'preferred' },
      });
      await factors.setChallenge(session.id, options.challenge);
      return options;
    },

    /** Verifies the browser's answer to the session's challenge and stores the new passkey. */
    async addPasskey(session: SessionRow, user: UserRow, response: unknown): Promise<boolean> {
      const challenge = await factors.takeChallenge(session.id);
      if (!challenge || !isCredentialJson(response)) return false;
      const verified = await verifyRegistrationResponse({
        response: response as unknown as RegistrationResponseJSON,
        expectedChallenge: challenge,
        expectedOrigin: party.origin,
        expectedRPID: party.rpID,
        requireUserVerification: false,
      }).catch(() => null);
      if (!verified?.verified) return false;
      const { credential } = verified.registrationInfo;
      return factors.addPasskey({
        id: credential.id,
        userId: user.id,
        publicKey: Buffer.from(credential.publicKey),
        counter: credential.counter,
        transports: credential.transports ?? [],
      });
    },

    /** Options for signing in with a passkey, or null for a member without one. */
    async passkeyAuthenticationOptions(
      session: SessionRow,
      user: UserRow,
    ): Promise<PublicKeyCredentialRequestOptionsJSON | null> {
      const passkeys = await factors.passkeysOf(user.id);
      if (passkeys.length === 0) return null;
      const options = await generateAuthenticationOptions({
        rpID: party.rpID,
        allowCredentials: passkeys.map((p) => ({
          id: p.id,
          transports: p.transports as AuthenticatorTransportFuture[],
        })),
        userVerification: 'preferred',
      });
      await factors.setChallenge(session.id, options.challenge);
      return options;
    },

    /** The sign-in's second step with a passkey, under the same throttle as codes. */
    async completeSignInWithPasskey(
      session: SessionRow,
      user: UserRow,
      response: unknown,
    ): Promise<FactorResult> {
      if (await users.isLocked(user.email)) return { ok: false, reason: 'locked' };
      const ok = await verifyPasskey(session, user, response);
      if (ok) {
        await users.clearFailures(user.email);
        await users.completeSecondFactor(session.id);
        return { ok: true, via: 'passkey' };
      }
      const row = await users.recordFailure(user.email, throttle);
      return { ok: false, reason: row.locked_until ? 'locked' : 'invalid' };
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
