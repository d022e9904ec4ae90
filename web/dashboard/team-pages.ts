import { Router, type Request, type Response } from 'express';
import type { Locale } from '../../domain/locale';
import { MEMBER_ROLES, can, type MemberRole } from '../../domain/member-roles';
import { ApiError } from '../../domain/errors';
import type { FieldIssue } from '../../services/accounts/account-input';
import type { UserRow } from '../../services/sign-in';
import { SESSION_TTL_SECONDS } from '../../services/sign-in';
import { html, type SafeHtml } from '../../html/html';
import { notice } from '../../html/notice';
import { csrfField, sendPage, tableFrame } from '../layout';
import { csrfValid, preSessionCsrf, readCookies, setCookie, webSession } from '../session';
import { field, requireCsrf, requireUser, sessionOf, type WebContext } from './context';
import { requireRecentSignIn } from './reauth';
import { issueSummary, langField, languageSwitch, localeOf, t, textInput } from './account-messages';

const roleLabel = (locale: Locale, role: MemberRole) => t(locale, `role_${role}`);

/** An action's refusal in the reader's language, by its code; anything not an ApiError is rethrown. */
function refusal(locale: Locale, err: unknown): { text: string; status: number } {
  if (!(err instanceof ApiError)) throw err;
  const known: Record<string, Parameters<typeof t>[1]> = {
    last_owner: 'err_last_owner',
    email_not_verified: 'err_email_not_verified',
    role_not_allowed: 'err_role_not_allowed',
    resource_missing: 'err_resource_missing',
  };
  const key = err.code ? known[err.code] : undefined;
  return { text: key ? t(locale, key) : err.message, status: err.status };
}

/**
 * The team page (`/dashboard/team`; decision 0117), for members whose role may `manage_team`:
 * members with their roles, invitations, and the owner's own email verification. The invitation
 * link's page (`/dashboard/invitation`) needs no sign-in: accepting signs the new member in.
 */
export function teamPages(ctx: WebContext): Router {
  const router = Router();
  const { team, emailVerification } = ctx.services;
  router.use('/dashboard/team', requireUser('merchant'), requireCsrf(ctx));

  async function teamPage(
    req: Request,
    res: Response,
    opts: {
      ok?: string;
      error?: string;
      status?: number;
      issues?: FieldIssue[];
      invite?: { email: string; role: string };
    } = {},
  ) {
    const locale = localeOf(req, res, ctx.cookies);
    const session = sessionOf(res);
    const me = session.user;
    const render = (body: SafeHtml, status = opts.status ?? 200) =>
      sendPage(res, html`${languageSwitch(req, locale)}${body}`, {
        title: t(locale, 'team_title'),
        lang: locale,
        session,
        status,
      });
    if (!me.role || !can(me.role, 'manage_team')) {
      render(
        notice('error', t(locale, 'team_not_allowed', { role: me.role ? roleLabel(locale, me.role) : '—' })),
        403,
      );
      return;
    }
    const { members, invitations } = await team.overview(me);
    const csrf = csrfField(session.session.csrf_token);
    const self = members.find((m) => m.id === me.id);
    const roleSelect = (id: string, selected: string, label: string) =>
      html`<select id="${id}" name="role" aria-label="${label}">
        ${MEMBER_ROLES.map((r) => html`<option value="${r}" ${r === selected ? 'selected' : ''}>${roleLabel(locale, r)}</option>`)}
      </select>`;
    const rows = members.map(
      (m: UserRow) =>
        html`<tr>
          <th scope="row">${m.email} ${m.id === me.id ? t(locale, 'team_you') : ''}</th>
          <td data-testid="role">${m.role ? roleLabel(locale, m.role) : ''}</td>
          <td>${m.email_verified_at ? t(locale, 'team_verified') : t(locale, 'team_unverified')}</td>
          <td>
            <form method="post" action="/dashboard/team/members/${m.id}/role" class="inline">
              ${csrf} ${langField(locale)}
              ${roleSelect(`role-${m.id}`, m.role ?? '', `${t(locale, 'team_role')}: ${m.email}`)}
              <button type="submit" class="secondary">${t(locale, 'team_change')}</button>
            </form>
            <form method="post" action="/dashboard/team/members/${m.id}/remove" class="inline">
              ${csrf} ${langField(locale)}
              <button type="submit" class="danger" aria-label="${t(locale, 'team_remove')}: ${m.email}">
                ${t(locale, 'team_remove')}
              </button>
            </form>
          </td>
        </tr>`,
    );
    const pending = invitations.map(
      (i) =>
        html`<tr>
          <th scope="row">${i.email}</th>
          <td>${roleLabel(locale, i.role)}</td>
          <td>${i.expires_at.toISOString().slice(0, 10)}</td>
          <td>
            <form method="post" action="/dashboard/team/invitations/${i.id}/revoke" class="inline">
              ${csrf} ${langField(locale)}
              <button type="submit" class="secondary" aria-label="${t(locale, 'team_revoke')}: ${i.email}">
                ${t(locale, 'team_revoke')}
              </button>
            </form>
          </td>
        </tr>`,
    );
    const issues = opts.issues ?? [];
    render(
      html`${opts.error ? notice('error', opts.error) : ''}${opts.ok ? notice('ok', opts.ok) : ''}
        ${
          self && !self.email_verified_at
            ? html`<div class="notice warn">
                <p>${t(locale, 'team_unverified_notice', { email: self.email })}</p>
                <form method="post" action="/dashboard/team/resend-verification">
                  ${csrf} ${langField(locale)}
                  <button type="submit" class="secondary">${t(locale, 'team_resend')}</button>
                </form>
              </div>`
            : ''
        }
        <section aria-labelledby="members-h">
          <h2 id="members-h">${t(locale, 'team_members')}</h2>
          ${tableFrame(
            t(locale, 'team_members'),
            html`<table>
              <thead>
                <tr>
                  <th scope="col">${t(locale, 'email')}</th>
                  <th scope="col">${t(locale, 'team_role')}</th>
                  <th scope="col">${t(locale, 'team_status')}</th>
                  <th scope="col"><span class="skip-label">${t(locale, 'team_change')}</span></th>
                </tr>
              </thead>
              <tbody>
                ${rows}
              </tbody>
            </table>`,
          )}
        </section>
        ${
          invitations.length > 0
            ? html`<section aria-labelledby="pending-h">
                <h2 id="pending-h">${t(locale, 'team_pending')}</h2>
                ${tableFrame(
                  t(locale, 'team_pending'),
                  html`<table>
                    <thead>
                      <tr>
                        <th scope="col">${t(locale, 'email')}</th>
                        <th scope="col">${t(locale, 'team_role')}</th>
                        <th scope="col">${t(locale, 'team_expires')}</th>
                        <th scope="col"><span class="skip-label">${t(locale, 'team_revoke')}</span></th>
                      </tr>
                    </thead>
                    <tbody>
                      ${pending}
                    </tbody>
                  </table>`,
                )}
              </section>`
            : ''
        }
        <section aria-labelledby="invite-h">
          <h2 id="invite-h">${t(locale, 'team_invite')}</h2>
          ${issueSummary(locale, issues)}
          <form method="post" action="/dashboard/team/invite" novalidate>
            ${csrf} ${langField(locale)}
            ${textInput(locale, {
              name: 'email',
              label: t(locale, 'email'),
              type: 'email',
              value: opts.invite?.email ?? '',
              autocomplete: 'off',
              issues,
            })}
            <label for="invite-role">${t(locale, 'team_role')}</label>
            <select id="invite-role" name="role">
              ${MEMBER_ROLES.map(
                (r) =>
                  html`<option value="${r}" ${r === (opts.invite?.role ?? 'developer') ? 'selected' : ''}>
                    ${roleLabel(locale, r)}
                  </option>`,
              )}
            </select>
            <p><button type="submit">${t(locale, 'team_invite_button')}</button></p>
          </form>
        </section>`,
    );
  }

  router.get('/dashboard/team', (req, res) => teamPage(req, res));

  router.post('/dashboard/team/invite', async (req, res) => {
    const locale = localeOf(req, res, ctx.cookies);
    const invite = { email: field(req, 'email').slice(0, 1000), role: field(req, 'role') };
    try {
      const result = await team.invite(sessionOf(res).user, invite, locale);
      if (!result.ok) return teamPage(req, res, { issues: result.issues, invite, status: 400 });
      const email = result.invitation.email;
      return teamPage(
        req,
        res,
        result.mailSent
          ? { ok: t(locale, 'team_invited', { email }) }
          : { error: t(locale, 'team_invite_mail_failed', { email }) },
      );
    } catch (err) {
      const { text, status } = refusal(locale, err);
      return teamPage(req, res, { error: text, status, invite });
    }
  });

  const memberAction =
    (run: (req: Request, res: Response) => Promise<void>, ok: Parameters<typeof t>[1]) =>
    async (req: Request, res: Response) => {
      const locale = localeOf(req, res, ctx.cookies);
      try {
        await run(req, res);
      } catch (err) {
        const { text, status } = refusal(locale, err);
        return teamPage(req, res, { error: text, status });
      }
      // Removing or demoting oneself can end one's right to this page: go where the session may.
      const now = await ctx.services.signIn.findSession(readSessionToken(req));
      if (!now?.user.role || !can(now.user.role, 'manage_team')) return res.redirect(303, '/dashboard');
      return teamPage(req, res, { ok: t(locale, ok) });
    };

  const readSessionToken = (req: Request) => readCookies(req)[ctx.cookies.session] ?? '';

  router.post(
    '/dashboard/team/members/:id/role',
    // A role decides who may move money: changing one asks for a recent sign-in (decision 0222).
    requireRecentSignIn(ctx),
    memberAction(
      (req, res) => team.changeRole(sessionOf(res).user, String(req.params.id), field(req, 'role')),
      'team_role_changed',
    ),
  );
  router.post(
    '/dashboard/team/members/:id/remove',
    memberAction((req, res) => team.removeMember(sessionOf(res).user, String(req.params.id)), 'team_removed'),
  );
  router.post(
    '/dashboard/team/invitations/:id/revoke',
    memberAction(
      (req, res) => team.revokeInvitation(sessionOf(res).user, String(req.params.id)),
      'team_revoked',
    ),
  );

  router.post('/dashboard/team/resend-verification', async (req, res) => {
    const locale = localeOf(req, res, ctx.cookies);
    const me = sessionOf(res).user;
    const sent = await emailVerification.resend(me, locale);
    return teamPage(
      req,
      res,
      sent
        ? { ok: t(locale, 'team_resent', { email: me.email }) }
        : { error: t(locale, 'team_resend_failed'), status: 502 },
    );
  });

  // ---- the invitation link ----

  function invitationPage(
    req: Request,
    res: Response,
    locale: Locale,
    body: SafeHtml,
    title: string,
    status = 200,
  ) {
    sendPage(res, html`${languageSwitch(req, locale)}${body}`, {
      title,
      lang: locale,
      status,
      session: webSession(res),
    });
  }

  async function acceptForm(
    req: Request,
    res: Response,
    locale: Locale,
    token: string,
    issues: FieldIssue[],
    status = 200,
  ) {
    const found = await team.inspectInvitation(token);
    if (!found) {
      invitationPage(
        req,
        res,
        locale,
        notice('error', t(locale, 'link_invalid')),
        t(locale, 'invitation_accept'),
        400,
      );
      return;
    }
    invitationPage(
      req,
      res,
      locale,
      html`${issueSummary(locale, issues)}
        <p>
          ${t(locale, 'invitation_intro', {
            merchant: found.merchantName,
            role: roleLabel(locale, found.role),
            email: found.email,
          })}
        </p>
        <form method="post" action="/dashboard/invitation" novalidate>
          ${csrfField(preSessionCsrf(req, res, ctx.cookies))} ${langField(locale)}
          <input type="hidden" name="token" value="${token}" />
          <input type="hidden" name="username" autocomplete="username" value="${found.email}" />
          ${textInput(locale, {
            name: 'password',
            label: t(locale, 'password'),
            type: 'password',
            autocomplete: 'new-password',
            hint: t(locale, 'password_hint'),
            issues,
            autofocus: true,
          })}
          <p><button type="submit">${t(locale, 'invitation_accept')}</button></p>
        </form>`,
      t(locale, 'invitation_title', { merchant: found.merchantName }),
      status,
    );
  }

  router.get('/dashboard/invitation', async (req, res) => {
    const locale = localeOf(req, res, ctx.cookies);
    await acceptForm(req, res, locale, typeof req.query.token === 'string' ? req.query.token : '', []);
  });

  router.post('/dashboard/invitation', async (req, res) => {
    const locale = localeOf(req, res, ctx.cookies);
    const token = field(req, 'token');
    if (!csrfValid(req, res, ctx.cookies, 'pre-session')) {
      invitationPage(
        req,
        res,
        locale,
        notice('error', t(locale, 'form_expired')),
        t(locale, 'invitation_accept'),
        403,
      );
      return;
    }
    const result = await team.accept(token, field(req, 'password'));
    if (!result.ok) {
      if (result.issues.some((i) => i.param === 'token'))
        invitationPage(
          req,
          res,
          locale,
          notice('error', t(locale, 'link_invalid')),
          t(locale, 'invitation_accept'),
          400,
        );
      else await acceptForm(req, res, locale, token, result.issues, 400);
      return;
    }
    const old = webSession(res);
    if (old) await ctx.services.signIn.signOut(old.session.id);
    setCookie(res, ctx.cookies, ctx.cookies.session, result.sessionToken, SESSION_TTL_SECONDS);
    res.redirect(303, '/dashboard');
  });

  return router;
}
