import type { Locale } from '../../domain/locale';
import { createUserRepository, normalizeEmail, type UserRow } from '../../db/users';
import { createTeamInvitationRepository, type TeamInvitationRow } from '../../db/team-invitations';
import { createMerchantRepository } from '../../db/merchants';
import { hashPassword } from '../../domain/password';
import { can, type MemberRole } from '../../domain/member-roles';
import { ConflictError, NotFoundError, PermissionError } from '../../domain/errors';
import { SESSION_TTL_SECONDS } from '../sign-in';
import { invitationMail } from './account-mail';
import {
  asRole,
  emailIssue,
  isUniqueViolation,
  passwordIssue,
  roleIssue,
  type FieldIssue,
} from './account-input';
import type { AccountServiceDeps } from './sign-up';

/** An invitation link works for a week (decision 0117). */
export const INVITATION_TTL_SECONDS = 7 * 24 * 60 * 60;

export interface TeamOverview {
  members: UserRow[];
  invitations: TeamInvitationRow[];
}

export type InviteResult =
  { ok: false; issues: FieldIssue[] } | { ok: true; invitation: TeamInvitationRow; mailSent: boolean };

export type AcceptResult =
  { ok: false; issues: FieldIssue[] } | { ok: true; user: UserRow; sessionToken: string };

/** The merchant user acting, checked to be allowed to manage the team. */
function manager(actor: UserRow): { merchantId: string } {
  if (actor.kind !== 'merchant' || actor.merchant_id === null || actor.role === null)
    throw new PermissionError('Only a merchant’s members manage its team', 'not_a_member');
  if (!can(actor.role, 'manage_team'))
    throw new PermissionError('Your role cannot manage the team', 'role_not_allowed');
  return { merchantId: actor.merchant_id };
}

/**
 * The merchant's team (decision 0117): owners invite by email with a role (once their own address
 * is verified), invitees accept by the emailed link and choose a password, owners change roles and
 * remove members. A merchant always keeps an owner: changes lock the team's rows first, so two
 * owners demoting each other at once cannot leave it with none.
 */
export function createTeamService(deps: AccountServiceDeps) {
  const users = createUserRepository(deps.knex);
  const invitations = createTeamInvitationRepository(deps.knex);
  const validToken = (token: string) => /^[0-9A-Za-z]{43}$/.test(token);

  /** Runs a change to one member with the team locked; refuses to leave the merchant without an owner. */
  async function changeMember(
    actor: UserRow,
    userId: string,
    change: { role: MemberRole } | { remove: true },
  ): Promise<void> {
    const { merchantId } = manager(actor);
    await deps.knex.transaction(async (trx) => {
      const repo = createUserRepository(trx);
      const team = (await repo.lockMembers(merchantId, trx)).filter((u) => u.disabled_at === null);
      // The actor's own row, as locked: a manager removed or demoted a moment ago acts no more.
      const me = team.find((u) => u.id === actor.id);
      if (!me?.role || !can(me.role, 'manage_team'))
        throw new PermissionError('Your role cannot manage the team', 'role_not_allowed');
      const target = team.find((u) => u.id === userId);
      if (!target) throw new NotFoundError(`No such team member: '${userId}'`, 'user');
      const staysOwner = 'role' in change && change.role === 'owner';
      if (target.role === 'owner' && !staysOwner && team.filter((u) => u.role === 'owner').length === 1)
        throw new ConflictError(
          'The last owner cannot be removed or given another role; make another member an owner first',
          'last_owner',
          'user',
        );
      if ('role' in change) await repo.setRole(merchantId, userId, change.role, trx);
      else await repo.disableMember(merchantId, userId, trx);
    });
  }

  return {
    async overview(actor: UserRow): Promise<TeamOverview> {
      const { merchantId } = manager(actor);
      const [members, open] = await Promise.all([
        users.listMembers(merchantId),
        invitations.listOpen(merchantId),
      ]);
      return { members, invitations: open };
    },

    async invite(
      actor: UserRow,
      input: { email: string; role: string },
      locale: Locale,
    ): Promise<InviteResult> {
      const { merchantId } = manager(actor);
      const fresh = await users.findById(actor.id);
      if (!fresh?.email_verified_at)
        throw new PermissionError(
          'Verify your email address before inviting your team: follow the link we emailed you, or send a new one',
          'email_not_verified',
        );
      const issues = [emailIssue(input.email), roleIssue(input.role)].filter(
        (i): i is FieldIssue => i !== null,
      );
      if (issues.length > 0) return { ok: false, issues };
      const email = normalizeEmail(input.email);
      const existing = await users.findByEmail(email);
      if (existing && existing.disabled_at === null)
        return {
          ok: false,
          issues: [
            { param: 'email', code: existing.merchant_id === merchantId ? 'already_member' : 'email_taken' },
          ],
        };
      if (existing && existing.merchant_id !== merchantId)
        return { ok: false, issues: [{ param: 'email', code: 'email_taken' }] };
      const role = asRole(input.role);
      const { row, token } = await deps.knex.transaction((trx) =>
        createTeamInvitationRepository(trx).create(
          { merchantId, email, role, invitedBy: actor.id, ttlSeconds: INVITATION_TTL_SECONDS },
          trx,
        ),
      );
      const merchant = await createMerchantRepository(deps.knex).findById(merchantId);
      const link = `${deps.publicBaseUrl}/dashboard/invitation?token=${token}`;
      let mailSent = true;
      try {
        await deps.mailer.send(
          invitationMail(locale, email, link, {
            inviter: actor.name ?? actor.email,
            merchantName: merchant?.name ?? '',
            role,
          }),
        );
      } catch (err) {
        mailSent = false;
        deps.log?.error({ err, invitation: row.id }, 'invitation email not sent');
      }
      return { ok: true, invitation: row, mailSent };
    },

    async revokeInvitation(actor: UserRow, invitationId: string): Promise<void> {
      const { merchantId } = manager(actor);
      if (!(await invitations.revoke(merchantId, invitationId)))
        throw new NotFoundError(`No such open invitation: '${invitationId}'`, 'invitation');
    },

    /** What an invitation link offers, while it is open. */
    async inspectInvitation(
      token: string,
    ): Promise<{ email: string; role: MemberRole; merchantName: string } | null> {
      if (!validToken(token)) return null;
      const row = await invitations.findOpenByToken(token);
      if (!row) return null;
      const merchant = await createMerchantRepository(deps.knex).findById(row.merchant_id);
      return { email: row.email, role: row.role, merchantName: merchant?.name ?? '' };
    },

    /** Accepts by the link: the member is made (or a removed one brought back) and signed in. */
    async accept(token: string, password: string): Promise<AcceptResult> {
      const issue = passwordIssue(password);
      if (issue) return { ok: false, issues: [issue] };
      const invalid: AcceptResult = { ok: false, issues: [{ param: 'token', code: 'token_invalid' }] };
      if (!validToken(token)) return invalid;
      const passwordHash = await hashPassword(password);
      try {
        return await deps.knex.transaction(async (trx): Promise<AcceptResult> => {
          const invites = createTeamInvitationRepository(trx);
          const row = await invites.lockOpenByToken(token, trx);
          if (!row) return invalid;
          const repo = createUserRepository(trx);
          const existing = await repo.findByEmail(row.email);
          let user: UserRow | undefined;
          if (existing) {
            if (existing.merchant_id !== row.merchant_id || existing.disabled_at === null)
              return { ok: false, issues: [{ param: 'email', code: 'email_taken' }] };
            user = await repo.enableMember(row.merchant_id, existing.id, { role: row.role, passwordHash });
          } else {
            user = await repo.create({
              kind: 'merchant',
              merchantId: row.merchant_id,
              email: row.email,
              passwordHash,
              role: row.role,
            });
          }
          await invites.markAccepted(row.id, user!.id, trx);
          const { token: sessionToken } = await repo.createSession(user!.id, SESSION_TTL_SECONDS);
          return { ok: true, user: user!, sessionToken };
        });
      } catch (err) {
        if (isUniqueViolation(err, 'users_email'))
          return { ok: false, issues: [{ param: 'email', code: 'email_taken' }] };
        throw err;
      }
    },

    changeRole(actor: UserRow, userId: string, role: string): Promise<void> {
      if (roleIssue(role)) throw new ConflictError(`Not a role: '${role}'`, 'role_invalid', 'role');
      return changeMember(actor, userId, { role: asRole(role) });
    },

    removeMember(actor: UserRow, userId: string): Promise<void> {
      return changeMember(actor, userId, { remove: true });
    },
  };
}

export type TeamService = ReturnType<typeof createTeamService>;
