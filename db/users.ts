import type { Db } from './knex';
import { newId, ID_PREFIX, randomBase62 } from '../domain/ids';
import { sha256 } from '../domain/device-codes';
import type { MemberRole } from '../domain/member-roles';
import type { Locale } from '../domain/locale';

export type UserKind = 'merchant' | 'operator';

export interface UserRow {
  id: string;
  kind: UserKind;
  /** Set for merchant users, null for operators (a check constraint keeps the two in step). */
  merchant_id: string | null;
  /** The merchant user's team role; null for operators (domain/member-roles.ts). */
  role: MemberRole | null;
  email: string;
  name: string | null;
  password_hash: string;
  created_at: Date;
  disabled_at: Date | null;
  /** When the user proved the address by a link mailed to it; null until then (decision 0115). */
  email_verified_at: Date | null;
  /** The language the user last chose in the dashboard; null until they choose one. */
  locale: Locale | null;
}

export interface SessionRow {
  id: string;
  token_hash: string;
  user_id: string;
  csrf_token: string;
  created_at: Date;
  expires_at: Date;
  last_seen_at: Date;
  /** Where and in what browser the session began (decision 0227); null for sessions from before. */
  client_address: string | null;
  user_agent: string | null;
  /** Password given, second factor still to give: the session opens no page but that step (decision 0220). */
  factor_pending: boolean;
  /** Signed in, but a second factor must be set up before any other page (decision 0221). */
  must_enrol: boolean;
  /** The last time the member gave password and second factor here: sign-in or re-authentication. */
  authenticated_at: Date;
}

/** Where a session begins: the client's address and its browser's User-Agent. */
export interface SessionOrigin {
  address: string | null;
  userAgent: string | null;
}

export interface ThrottleRow {
  email: string;
  failures: number;
  first_failure_at: Date;
  locked_until: Date | null;
}

/** Emails are compared case-insensitively and stored trimmed. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** Dashboard users (merchant users and operators), their sessions and the sign-in throttle. */
export function createUserRepository(db: Db) {
  return {
    async create(
      input: {
        kind: UserKind;
        merchantId: string | null;
        email: string;
        name?: string;
        passwordHash: string;
        /** A merchant user's role; the account's first user is its owner. */
        role?: MemberRole;
        /**
         * Whether the address is known to be the user's. Only self-serve sign-up creates users with
         * an address still to verify; operators, the demo seed and accepted invitations are verified.
         */
        emailVerified?: boolean;
      },
      trx: Db = db,
    ): Promise<UserRow> {
      const [row] = await trx<UserRow>('users')
        .insert({
          id: newId(ID_PREFIX.user),
          kind: input.kind,
          merchant_id: input.merchantId,
          email: normalizeEmail(input.email),
          name: input.name ?? null,
          password_hash: input.passwordHash,
          role: input.kind === 'merchant' ? (input.role ?? 'owner') : null,
          email_verified_at: input.emailVerified === false ? null : (trx.fn.now() as never),
        })
        .returning('*');
      return row!;
    },

    async findByEmail(email: string, trx: Db = db): Promise<UserRow | undefined> {
      return trx<UserRow>('users')
        .whereRaw('lower(email) = ?', [normalizeEmail(email)])
        .first();
    },

    async findById(id: string, trx: Db = db): Promise<UserRow | undefined> {
      return trx<UserRow>('users').where({ id }).first();
    },

    // ---- email verification, passwords and the team (decisions 0115-0117) ----

    /** Marks the address verified, if it is still the user's address; false when it is not. */
    async markEmailVerified(userId: string, email: string, trx: Db = db): Promise<boolean> {
      const n = await trx('users')
        .where({ id: userId })
        .whereRaw('lower(email) = ?', [normalizeEmail(email)])
        .update({ email_verified_at: trx.raw('coalesce(email_verified_at, now())') });
      return n > 0;
    },

    async setLocale(userId: string, locale: Locale, trx: Db = db): Promise<void> {
      await trx('users').where({ id: userId }).update({ locale });
    },

    async setPassword(userId: string, passwordHash: string, trx: Db = db): Promise<void> {
      await trx('users').where({ id: userId }).update({ password_hash: passwordHash });
    },

    /** Ends every dashboard session of the user (after a password reset or removal from a team). */
    async deleteSessionsOf(userId: string, trx: Db = db): Promise<void> {
      await trx('dashboard_sessions').where({ user_id: userId }).delete();
    },

    /** The merchant's enabled team members, oldest first. */
    async listMembers(merchantId: string, trx: Db = db): Promise<UserRow[]> {
      return trx<UserRow>('users')
        .where({ merchant_id: merchantId, kind: 'merchant' })
        .whereNull('disabled_at')
        .orderBy([{ column: 'created_at' }, { column: 'id' }]);
    },

    /**
     * Locks every user row of the merchant, in id order, so two changes to one team (demoting or
     * removing owners) run one after the other and the last owner cannot be lost between them.
     */
    async lockMembers(merchantId: string, trx: Db): Promise<UserRow[]> {
      return trx<UserRow>('users')
        .where({ merchant_id: merchantId, kind: 'merchant' })
        .orderBy('id')
        .forUpdate();
    },

    async setRole(merchantId: string, userId: string, role: MemberRole, trx: Db = db): Promise<void> {
      await trx('users').where({ id: userId, merchant_id: merchantId, kind: 'merchant' }).update({ role });
    },

    /** Removes a member from the team: disabled, so their past actions keep a user to point at. */
    async disableMember(merchantId: string, userId: string, trx: Db = db): Promise<void> {
      await trx('users')
        .where({ id: userId, merchant_id: merchantId, kind: 'merchant' })
        .update({ disabled_at: trx.fn.now() });
      await trx('dashboard_sessions').where({ user_id: userId }).delete();
    },

    /** Brings a removed member back, as a new invitation's acceptance does, with a new password. */
    async enableMember(
      merchantId: string,
      userId: string,
      values: { role: MemberRole; passwordHash: string },
      trx: Db = db,
    ): Promise<UserRow | undefined> {
      const [row] = await trx<UserRow>('users')
        .where({ id: userId, merchant_id: merchantId, kind: 'merchant' })
        .update({
          disabled_at: null,
          role: values.role,
          password_hash: values.passwordHash,
          email_verified_at: trx.raw('coalesce(email_verified_at, now())') as never,
        })
        .returning('*');
      return row;
    },

    /**
     * Whether the merchant has a user and none of its enabled users has a verified address: a
     * self-serve account whose owner has not yet clicked the link (decision 0115).
     */
    async awaitsEmailVerification(merchantId: string, trx: Db = db): Promise<boolean> {
      const row = await trx('users')
        .where({ merchant_id: merchantId, kind: 'merchant' })
        .whereNull('disabled_at')
        .first<{ users: string; verified: string }>(
          trx.raw('count(*) as users'),
          trx.raw('count(email_verified_at) as verified'),
        );
      return Number(row?.users ?? 0) > 0 && Number(row?.verified ?? 0) === 0;
    },

    // ---- sessions: the cookie holds a random token; the table holds its hash ----

    async createSession(
      userId: string,
      ttlSeconds: number,
      trx: Db = db,
      opts: { origin?: SessionOrigin; factorPending?: boolean; mustEnrol?: boolean } = {},
    ): Promise<{ row: SessionRow; token: string }> {
      const token = randomBase62(43);
      const [row] = await trx<SessionRow>('dashboard_sessions')
        .insert({
          id: newId(ID_PREFIX.session),
          token_hash: sha256(token),
          user_id: userId,
          csrf_token: randomBase62(32),
          factor_pending: opts.factorPending ?? false,
          must_enrol: opts.mustEnrol ?? false,
          expires_at: trx.raw(`now() + ? * interval '1 second'`, [ttlSeconds]) as never,
          client_address: opts.origin?.address ?? null,
          user_agent: opts.origin?.userAgent?.slice(0, 300) ?? null,
        })
        .returning('*');
      return { row: row!, token };
    },

    /** The live session of a cookie token with its user, sliding last_seen_at at most once a minute. */
    async findSession(
      token: string,
      trx: Db = db,
    ): Promise<{ session: SessionRow; user: UserRow } | undefined> {
      const session = await trx<SessionRow>('dashboard_sessions')
        .where({ token_hash: sha256(token) })
        .where('expires_at', '>', trx.fn.now())
        .first();
      if (!session) return undefined;
      const user = await trx<UserRow>('users')
        .where({ id: session.user_id })
        .whereNull('disabled_at')
        .first();
      if (!user) return undefined;
      await trx('dashboard_sessions')
        .where({ id: session.id })
        .where('last_seen_at', '<', trx.raw("now() - interval '1 minute'"))
        .update({ last_seen_at: trx.fn.now() });
      return { session, user };
    },

    /**
     * The second factor was given: the session is signed in from now, and must set one up first
     * when `mustEnrol` (never: a member who just gave one has one).
     */
    async completeSecondFactor(id: string, trx: Db = db): Promise<void> {
      await trx('dashboard_sessions')
        .where({ id })
        .update({ factor_pending: false, must_enrol: false, authenticated_at: trx.fn.now() });
    },

    /** Password and second factor given again in this session (re-authentication, decision 0222). */
    async markAuthenticated(id: string, trx: Db = db): Promise<void> {
      await trx('dashboard_sessions').where({ id }).update({ authenticated_at: trx.fn.now() });
    },

    /** The user has a second factor now: none of their sessions is held at enrolment any longer. */
    async releaseEnrolment(userId: string, trx: Db = db): Promise<void> {
      await trx('dashboard_sessions')
        .where({ user_id: userId, must_enrol: true })
        .update({ must_enrol: false });
    },

    /** Whether the session's last full sign-in is within `seconds` (the database's clock decides). */
    async authenticatedWithin(id: string, seconds: number, trx: Db = db): Promise<boolean> {
      const row: { id: string } | undefined = await trx<{ id: string }>('dashboard_sessions')
        .where({ id })
        .where('authenticated_at', '>', trx.raw(`now() - ? * interval '1 second'`, [seconds]))
        .first('id');
      return row !== undefined;
    },

    async deleteSession(id: string, trx: Db = db): Promise<void> {
      await trx('dashboard_sessions').where({ id }).delete();
    },

    /** A user's sessions that have not expired, the most recently seen first. */
    async activeSessions(userId: string, trx: Db = db): Promise<SessionRow[]> {
      return trx<SessionRow>('dashboard_sessions')
        .where({ user_id: userId })
        .where('expires_at', '>', trx.fn.now())
        .orderBy([
          { column: 'last_seen_at', order: 'desc' },
          { column: 'id', order: 'desc' },
        ]);
    },

    /** Ends one of the user's own sessions; false when it is not theirs or already gone. */
    async deleteOwnSession(userId: string, id: string, trx: Db = db): Promise<boolean> {
      return (await trx('dashboard_sessions').where({ id, user_id: userId }).delete()) > 0;
    },

    // ---- sign-in throttle, keyed by the address typed ----

    async throttle(email: string, trx: Db = db): Promise<ThrottleRow | undefined> {
      return trx<ThrottleRow>('sign_in_throttle')
        .where({ email: normalizeEmail(email) })
        .first();
    },

    /**
     * Counts a failure inside a window of `windowSeconds`; the `maxFailures`-th locks the address for
     * `lockSeconds`. Returns the row after the update.
     */
    /** Whether the address is locked now (the database's clock decides, as it set the lock). */
    async isLocked(email: string, trx: Db = db): Promise<boolean> {
      const row = await trx<ThrottleRow>('sign_in_throttle')
        .where({ email: normalizeEmail(email) })
        .where('locked_until', '>', trx.fn.now())
        .first('email');
      return row !== undefined;
    },

    async recordFailure(
      email: string,
      policy: { maxFailures: number; windowSeconds: number; lockSeconds: number },
      trx: Db = db,
    ): Promise<ThrottleRow> {
      const { rows } = await trx.raw<{ rows: ThrottleRow[] }>(
        `insert into sign_in_throttle as t (email, failures, first_failure_at)
         values (?, 1, now())
         on conflict (email) do update set
           failures = case when t.first_failure_at < now() - (? * interval '1 second')
                           then 1 else t.failures + 1 end,
           first_failure_at = case when t.first_failure_at < now() - (? * interval '1 second')
                                   then now() else t.first_failure_at end
         returning *`,
        [normalizeEmail(email), policy.windowSeconds, policy.windowSeconds],
      );
      let row = rows[0]!;
      if (row.failures >= policy.maxFailures) {
        const [locked] = await trx<ThrottleRow>('sign_in_throttle')
          .where({ email: row.email })
          .update({
            failures: 0,
            first_failure_at: trx.fn.now() as never,
            locked_until: trx.raw(`now() + ? * interval '1 second'`, [policy.lockSeconds]) as never,
          })
          .returning('*');
        row = locked!;
      }
      return row;
    },

    async clearFailures(email: string, trx: Db = db): Promise<void> {
      await trx('sign_in_throttle')
        .where({ email: normalizeEmail(email) })
        .delete();
    },

    // ---- operator API tokens ----

    /** A new operator token, `op_` + 40 base62; returned once, stored as its hash. */
    async createOperatorToken(userId: string, trx: Db = db): Promise<{ id: string; token: string }> {
      const token = `op_${randomBase62(40)}`;
      const id = newId(ID_PREFIX.operatorToken);
      await trx('operator_tokens').insert({
        id,
        user_id: userId,
        token_hash: sha256(token),
        last4: token.slice(-4),
      });
      return { id, token };
    },

    /** The operator (an enabled user of kind operator) holding an active token. */
    async findOperatorByToken(token: string, trx: Db = db): Promise<UserRow | undefined> {
      const row = await trx('operator_tokens as t')
        .join('users as u', 'u.id', 't.user_id')
        .where({ 't.token_hash': sha256(token), 'u.kind': 'operator' })
        .whereNull('t.revoked_at')
        .whereNull('u.disabled_at')
        .first<(UserRow & { token_id: string }) | undefined>('u.*', 't.id as token_id');
      if (!row) return undefined;
      await trx('operator_tokens')
        .where({ id: row.token_id })
        .andWhere((q) =>
          q.whereNull('last_used_at').orWhere('last_used_at', '<', trx.raw("now() - interval '1 minute'")),
        )
        .update({ last_used_at: trx.fn.now() });
      const { token_id: _tokenId, ...user } = row;
      return user;
    },
  };
}

export type UserRepository = ReturnType<typeof createUserRepository>;
