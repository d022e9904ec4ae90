import { Router, type RequestHandler } from 'express';
import type { Locale } from '../../domain/locale';
import { SESSION_TTL_SECONDS } from '../../services/sign-in';
import { recordedAddress } from '../../domain/client-address';
import { html } from '../../html/html';
import { notice } from '../../html/notice';
import { csrfField, sendPage } from '../layout';
import { csrfValid, preSessionCsrf, setCookie, webSession } from '../session';
import { field, requireCsrf, safeNext, type WebContext } from './context';
import { langField, languageSwitch, localeOf, t } from './account-messages';

/** `/dashboard/sign-in` and `/dashboard/sign-out` for merchant users and operators, is/en. */
export function signInPages(ctx: WebContext): Router {
  const router = Router();
  const { signIn } = ctx.services;

  const home = (kind: string) => (kind === 'operator' ? '/dashboard/operator' : '/dashboard/home');

  function form(locale: Locale, token: string, next: string | null, email: string, error?: string) {
    return html`${error ? notice('error', error) : ''}
      <form method="post" action="/dashboard/sign-in">
        ${csrfField(token)} ${langField(locale)}
        ${next ? html`<input type="hidden" name="next" value="${next}" />` : ''}
        <label for="email">${t(locale, 'email')}</label>
        <input
          id="email"
          name="email"
          type="email"
          autocomplete="username"
          required
          value="${email}"
          autofocus
        />
        <label for="password">${t(locale, 'password')}</label>
        <input id="password" name="password" type="password" autocomplete="current-password" required />
        <p><button type="submit">${t(locale, 'sign_in')}</button></p>
      </form>
      <p><a href="/dashboard/reset-password?lang=${locale}">${t(locale, 'forgot_link')}</a></p>
      <p>
        ${t(locale, 'no_account')}
        <a href="/dashboard/sign-up?lang=${locale}">${t(locale, 'create_account_link')}</a>
      </p>`;
  }

  router.get('/dashboard/sign-in', (req, res) => {
    const next = safeNext(req.query.next);
    const session = webSession(res);
    if (session) {
      res.redirect(303, next ?? home(session.user.kind));
      return;
    }
    const locale = localeOf(req, res, ctx.cookies);
    sendPage(
      res,
      html`${languageSwitch(req, locale)}${form(locale, preSessionCsrf(req, res, ctx.cookies), next, '')}`,
      { title: t(locale, 'sign_in_title'), lang: locale },
    );
  });

  router.post('/dashboard/sign-in', async (req, res) => {
    const next = safeNext(field(req, 'next'));
    const email = field(req, 'email').slice(0, 320);
    const locale = localeOf(req, res, ctx.cookies);
    const retry = (status: number, message: string) =>
      sendPage(res, form(locale, preSessionCsrf(req, res, ctx.cookies), next, email, message), {
        title: t(locale, 'sign_in_title'),
        lang: locale,
        status,
      });
    if (!csrfValid(req, res, ctx.cookies, 'pre-session')) {
      retry(403, t(locale, 'sign_in_expired'));
      return;
    }
    const result = await signIn.signIn(email, field(req, 'password'), {
      address: recordedAddress(req.ip ?? req.socket.remoteAddress),
      userAgent: req.get('user-agent') ?? null,
    });
    if (!result.ok) {
      if (result.reason === 'locked') {
        retry(429, t(locale, 'sign_in_locked'));
      } else {
        retry(401, t(locale, 'sign_in_wrong'));
      }
      return;
    }
    // A fresh token at every sign-in, so a session id planted before sign-in is worthless.
    const old = webSession(res);
    if (old) await signIn.signOut(old.session.id);
    setCookie(res, ctx.cookies, ctx.cookies.session, result.token, SESSION_TTL_SECONDS);
    // The session opens nothing until the second factor is given (decision 0220), and one that
    // must set up a second factor opens the security page first (decision 0221).
    if (result.step === 'second_factor') {
      const query = new URLSearchParams({ lang: locale, ...(next && { next }) });
      res.redirect(303, `/dashboard/sign-in/code?${query.toString()}`);
      return;
    }
    if (result.step === 'enrol') {
      res.redirect(303, '/dashboard/security');
      return;
    }
    res.redirect(303, next ?? home(result.user.kind));
  });

  const signedOut: RequestHandler = (_req, res, next) =>
    webSession(res) ? next() : res.redirect(303, '/dashboard/sign-in');
  router.post('/dashboard/sign-out', signedOut, requireCsrf(ctx), async (_req, res) => {
    await signIn.signOut(webSession(res)!.session.id);
    setCookie(res, ctx.cookies, ctx.cookies.session, '', 0);
    res.redirect(303, '/dashboard/sign-in');
  });

  return router;
}
