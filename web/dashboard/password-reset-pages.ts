import { Router, type Request, type Response } from 'express';
import type { Locale } from '../../domain/locale';
import { html, type SafeHtml } from '../../html/html';
import type { FieldIssue } from '../../services/accounts/account-input';
import { notice } from '../../html/notice';
import { csrfField, sendPage } from '../layout';
import { csrfValid, preSessionCsrf, webSession } from '../session';
import { field, type WebContext } from './context';
import { issueSummary, langField, languageSwitch, localeOf, t, textInput } from './account-messages';

/**
 * Password reset by email (`/dashboard/reset-password`; decision 0116): ask with an address (the
 * answer is the same whether it has an account), then choose a new password from the emailed link.
 */
export function passwordResetPages(ctx: WebContext): Router {
  const router = Router();
  const { passwordReset } = ctx.services;

  function page(req: Request, res: Response, locale: Locale, body: SafeHtml, status = 200) {
    sendPage(res, html`${languageSwitch(req, locale)}${body}`, {
      title: t(locale, 'reset_title'),
      lang: locale,
      status,
      session: webSession(res),
    });
  }

  const askForm = (req: Request, res: Response, locale: Locale, email: string, issues: FieldIssue[] = []) =>
    html`${issueSummary(locale, issues)}
      <p>${t(locale, 'reset_intro')}</p>
      <form method="post" action="/dashboard/reset-password" novalidate>
        ${csrfField(preSessionCsrf(req, res, ctx.cookies))} ${langField(locale)}
        ${textInput(locale, {
          name: 'email',
          label: t(locale, 'email'),
          type: 'email',
          value: email,
          autocomplete: 'email',
          issues,
          autofocus: true,
        })}
        <p><button type="submit">${t(locale, 'reset_send')}</button></p>
      </form>`;

  const newPasswordForm = (
    req: Request,
    res: Response,
    locale: Locale,
    token: string,
    issues: FieldIssue[],
  ) =>
    html`${issueSummary(locale, issues)}
      <p>${t(locale, 'reset_choose')}</p>
      <form method="post" action="/dashboard/reset-password/new" novalidate>
        ${csrfField(preSessionCsrf(req, res, ctx.cookies))} ${langField(locale)}
        <input type="hidden" name="token" value="${token}" />
        ${textInput(locale, {
          name: 'password',
          label: t(locale, 'new_password'),
          type: 'password',
          autocomplete: 'new-password',
          hint: t(locale, 'password_hint'),
          issues,
          autofocus: true,
        })}
        <p><button type="submit">${t(locale, 'reset_save')}</button></p>
      </form>`;

  const invalidLink = (locale: Locale) =>
    html`${notice('error', t(locale, 'link_invalid'))}
      <p><a href="/dashboard/reset-password?lang=${locale}">${t(locale, 'reset_again')}</a></p>`;

  router.get('/dashboard/reset-password', async (req, res) => {
    const locale = localeOf(req, res, ctx.cookies);
    const token = typeof req.query.token === 'string' ? req.query.token : null;
    if (token === null) {
      page(req, res, locale, askForm(req, res, locale, ''));
      return;
    }
    if (!(await passwordReset.inspect(token))) {
      page(req, res, locale, invalidLink(locale), 400);
      return;
    }
    page(req, res, locale, newPasswordForm(req, res, locale, token, []));
  });

  router.post('/dashboard/reset-password', (req, res) => {
    const locale = localeOf(req, res, ctx.cookies);
    const email = field(req, 'email').slice(0, 1000);
    if (!csrfValid(req, res, ctx.cookies, 'pre-session')) {
      page(
        req,
        res,
        locale,
        html`${notice('error', t(locale, 'form_expired'))}${askForm(req, res, locale, email)}`,
        403,
      );
      return;
    }
    const asked = passwordReset.request(email, locale);
    if (!asked.ok) {
      page(req, res, locale, askForm(req, res, locale, email, asked.issues), 400);
      return;
    }
    page(req, res, locale, notice('ok', t(locale, 'reset_sent', { email: email.trim() })));
  });

  router.post('/dashboard/reset-password/new', async (req, res) => {
    const locale = localeOf(req, res, ctx.cookies);
    const token = field(req, 'token');
    if (!csrfValid(req, res, ctx.cookies, 'pre-session')) {
      page(req, res, locale, notice('error', t(locale, 'form_expired')), 403);
      return;
    }
    const result = await passwordReset.reset(token, field(req, 'password'));
    if (!result.ok) {
      if (result.issues.some((i) => i.param === 'token')) page(req, res, locale, invalidLink(locale), 400);
      else page(req, res, locale, newPasswordForm(req, res, locale, token, result.issues), 400);
      return;
    }
    page(
      req,
      res,
      locale,
      html`${notice('ok', t(locale, 'reset_done'))}
        <p><a href="/dashboard/sign-in?lang=${locale}">${t(locale, 'sign_in')}</a></p>`,
    );
  });

  return router;
}
