import type { Db } from './knex';

/** A member's TOTP enrolment; `secret` is sealed (domain/secret-box.ts, SEALED_AT.totpSecret). */
export interface TotpRow {
  user_id: string;
  secret: string;
  /** Null while the enrolment waits for its first code. */
  confirmed_at: Date | null;
  /** The last time step accepted; codes of it or earlier are refused, so each works once. */
  last_step: string | null;
  created_at: Date;
}

/** What the merchant asks of its members' sign-in (decisions 0221, 0222). */
export interface MerchantSecurityRow {
  id: string;
  application_status: string;
  require_second_factor: boolean;
  /** ISK; a dashboard refund above this asks for a recent sign-in. */
  reauth_refund_above: string;
}

/** A member's passkey: a WebAuthn credential, its public key and signature counter (decision 0223). */
export interface PasskeyRow {
  /** The credential id, base64url, as the authenticator names it. */
  id: string;
  user_id: string;
  public_key: Buffer;
  counter: string;
  transports: string[];
  created_at: Date;
  last_used_at: Date | null;
}

/** Second factors (TOTP and recovery codes) and the merchant's second-factor settings (decision 0220). */
export function createSecondFactorRepository(db: Db) {
  return {
    async totpOf(userId: string, trx: Db = db): Promise<TotpRow | undefined> {
      return trx<TotpRow>('user_totp').where({ user_id: userId }).first();
    },

    /** Starts (or starts again) an enrolment; refused by the where clause when one is confirmed. */
    async startTotp(userId: string, sealedSecret: string, trx: Db = db): Promise<boolean> {
      const { rows } = await trx.raw<{ rows: unknown[] }>(
        `insert into user_totp as t (user_id, secret) values (?, ?)
         on conflict (user_id) do update set secret = excluded.secret, created_at = now()
           where t.confirmed_at is null
         returning user_id`,
        [userId, sealedSecret],
      );
      return rows.length === 1;
    },

    /**
     * Takes `step` as the latest code: true once per step, and only for a step after the last one
     * taken, in one statement, so two requests with one code cannot both pass. `confirm` is the
     * enrolment's first code; otherwise the enrolment must be confirmed already.
     */
    async acceptStep(userId: string, step: number, confirm: boolean, trx: Db = db): Promise<boolean> {
      const query = trx('user_totp')
        .where({ user_id: userId })
        .andWhere((q) => {
          q.whereNull('last_step').orWhere('last_step', '<', step);
        });
      if (confirm) query.whereNull('confirmed_at');
      else query.whereNotNull('confirmed_at');
      const n = await query.update({
        last_step: step,
        confirmed_at: trx.raw('coalesce(confirmed_at, now())') as never,
      });
      return n === 1;
    },

    /** Replaces the user's recovery codes with these hashes. */
    async replaceRecoveryCodes(userId: string, hashes: string[], trx: Db = db): Promise<void> {
      await trx('user_recovery_codes').where({ user_id: userId }).delete();
      if (hashes.length > 0)
        await trx('user_recovery_codes').insert(hashes.map((code_hash) => ({ user_id: userId, code_hash })));
    },

    /** Spends a recovery code: true once, for an unspent code of the user. */
    async spendRecoveryCode(userId: string, hash: string, trx: Db = db): Promise<boolean> {
      const n = await trx('user_recovery_codes')
        .where({ user_id: userId, code_hash: hash })
        .whereNull('used_at')
        .update({ used_at: trx.fn.now() });
      return n === 1;
    },

    async recoveryCodesLeft(userId: string, trx: Db = db): Promise<number> {
      const row = await trx('user_recovery_codes')
        .where({ user_id: userId })
        .whereNull('used_at')
        .first<{ n: string }>(trx.raw('count(*) as n'));
      return Number(row?.n ?? 0);
    },

    /** Removes every second factor of the user (an operator's reset); true when there was one. */
    async removeAll(userId: string, trx: Db = db): Promise<boolean> {
      const totp = await trx('user_totp').where({ user_id: userId }).delete();
      const codes = await trx('user_recovery_codes').where({ user_id: userId }).delete();
      const passkeys = await trx('user_passkeys').where({ user_id: userId }).delete();
      return totp + codes + passkeys > 0;
    },

    // ---- passkeys (decision 0223) ----

    async passkeysOf(userId: string, trx: Db = db): Promise<PasskeyRow[]> {
      return trx<PasskeyRow>('user_passkeys').where({ user_id: userId }).orderBy('created_at');
    },

    /** Stores a new passkey; false when that credential id is stored already. */
    async addPasskey(
      row: { id: string; userId: string; publicKey: Buffer; counter: number; transports: string[] },
      trx: Db = db,
    ): Promise<boolean> {
      const inserted = await trx('user_passkeys')
        .insert({
          id: row.id,
          user_id: row.userId,
          public_key: row.publicKey,
          counter: row.counter,
          transports: row.transports,
        })
        .onConflict('id')
        .ignore()
        .returning('id');
      return inserted.length === 1;
    },

    /** Records a use: the counter moves forward only (a cloned authenticator's lower count is refused). */
    async usePasskey(id: string, userId: string, counter: number, trx: Db = db): Promise<boolean> {
      const n = await trx('user_passkeys')
        .where({ id, user_id: userId })
        .andWhere((q) => {
          q.where('counter', '<', counter).orWhere((z) => {
            z.where('counter', 0).andWhere(trx.raw('? = 0', [counter]));
          });
        })
        .update({ counter, last_used_at: trx.fn.now() });
      return n === 1;
    },

    /** The session's outstanding WebAuthn challenge, replacing any earlier one. */
    async setChallenge(sessionId: string, challenge: string, trx: Db = db): Promise<void> {
      await trx('dashboard_sessions').where({ id: sessionId }).update({ webauthn_challenge: challenge });
    },

    /** Takes the session's challenge: answered once, then gone, so an answer cannot be replayed. */
    async takeChallenge(sessionId: string, trx: Db = db): Promise<string | null> {
      const { rows } = await trx.raw<{ rows: { challenge: string }[] }>(
        `with old as (
           select id, webauthn_challenge as challenge from dashboard_sessions
           where id = ? and webauthn_challenge is not null for update
         )
         update dashboard_sessions s set webauthn_challenge = null from old
         where s.id = old.id returning old.challenge`,
        [sessionId],
      );
      return rows[0]?.challenge ?? null;
    },

    async merchantSettings(merchantId: string, trx: Db = db): Promise<MerchantSecurityRow | undefined> {
      return trx<MerchantSecurityRow>('merchants')
        .where({ id: merchantId })
        .first('id', 'application_status', 'require_second_factor', 'reauth_refund_above');
    },

    async setMerchantSettings(
      merchantId: string,
      values: { requireSecondFactor: boolean; reauthRefundAbove: number },
      trx: Db = db,
    ): Promise<void> {
      await trx('merchants').where({ id: merchantId }).update({
        require_second_factor: values.requireSecondFactor,
        reauth_refund_above: values.reauthRefundAbove,
      });
    },
  };
}

export type SecondFactorRepository = ReturnType<typeof createSecondFactorRepository>;
