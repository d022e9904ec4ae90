import { Router, type Request, type Response } from 'express';
import type { Locale } from '../../domain/locale';
import { SESSION_TTL_SECONDS } from '../../services/sign-in';
import type { FieldIssue } from '../../services/accounts/account-input';
import { html, type SafeHtml } from '../../html/html';
import { notice } from '../../html/notice';
import { csrfField, sendPage } from '../layout';
import { csrfValid, preSessionCsrf, setCookie, webSession } from '../session';
import { field, type WebContext } from './context';
import { issueSummary, langField, languageSwitch, localeOf, t, textInput } from './account-messages';

/** Styles of the account forms' hints and per-field errors. */

/**
 * Self-serve sign-up (`/dashboard/sign-up`) and email verification (`/dashboard/verify-email`), is/en
 * (decision 0115). Sign-up shows the new test key on its answer page and signs the owner in.
 */
export function signUpPages(ctx: WebContext): Router {
  const router = Router();
  const { signUp, emailVerification } = ctx.services;

  function page(req: Request, res: Response, locale: Locale, title: string, body: SafeHtml, status = 200) {
    sendPage(res, html`${languageSwitch(req, locale)}${body}`, {
      title,
      lang: locale,
      status,
      session: webSession(res),
    });
  }

  function signUpForm(
    req: Request,
    res: Response,
    locale: Locale,
    values: { business_name: string; email: string },
    issues: FieldIssue[],
    status = 200,
    error?: string,
  ) {
    page(
      req,
      res,
      locale,
      t(locale, 'sign_up_title'),
      html`${error ? notice('error', error) : ''}${issueSummary(locale, issues)}
        <p>${t(locale, 'sign_up_intro')}</p>
        <form method="post" action="/dashboard/sign-up" novalidate>
          ${csrfField(preSessionCsrf(req, res, ctx.cookies))} ${langField(locale)}
          ${textInput(locale, {
            name: 'business_name',
            label: t(locale, 'business_name'),
            value: values.business_name,
            autocomplete: 'organization',
            issues,
            autofocus: true,
          })}
          ${textInput(locale, {
            name: 'email',
            label: t(locale, 'email'),
            type: 'email',
            value: values.email,
            autocomplete: 'email',
            issues,
          })}
          ${textInput(locale, {
            name: 'password',
            label: t(locale, 'password'),
            type: 'password',
            autocomplete: 'new-password',
            hint: t(locale, 'password_hint'),
            issues,
          })}
          <p><button type="submit">${t(locale, 'create_account')}</button></p>
        </form>
        <p>
          ${t(locale, 'have_account')} <a href="/dashboard/sign-in?lang=${locale}">${t(locale, 'sign_in')}</a>
        </p>`,
      status,
    );
  }

  router.get('/dashboard/sign-up', (req, res) => {
    const locale = localeOf(req, res, ctx.cookies);
    signUpForm(req, res, locale, { business_name: '', email: '' }, []);
  });

  router.post('/dashboard/sign-up', async (req, res) => {
    const locale = localeOf(req, res, ctx.cookies);
    const values = {
      business_name: field(req, 'business_name').slice(0, 1000),
      email: field(req, 'email').slice(0, 1000),
    };
    if (!csrfValid(req, res, ctx.cookies, 'pre-session')) {
      signUpForm(req, res, locale, values, [], 403, t(locale, 'form_expired'));
      return;
    }
    const result = await signUp.signUp(
      { businessName: values.business_name, email: values.email, password: field(req, 'password') },
      locale,
    );
    if (!result.ok) {
      signUpForm(req, res, locale, values, result.issues, 400);
      return;
    }
    const old = webSession(res);
    if (old) await ctx.services.signIn.signOut(old.session.id);
    setCookie(res, ctx.cookies, ctx.cookies.session, result.sessionToken, SESSION_TTL_SECONDS);
    const session = await ctx.services.signIn.findSession(result.sessionToken);
    sendPage(
      res,
      html`${notice(
          result.mailSent ? 'ok' : 'warn',
          result.mailSent
            ? t(locale, 'signed_up_mail', { email: result.user.email })
            : t(locale, 'signed_up_mail_failed'),
        )}
        <p>${t(locale, 'signed_up_key')}</p>
        <p><code class="secret" data-testid="test-key">${result.testKey}</code></p>
        <p>${t(locale, 'signed_up_next')}</p>
        <p><a href="/dashboard">${t(locale, 'go_dashboard')}</a></p>`,
      { title: t(locale, 'signed_up_title'), lang: locale, session },
    );
  });

  // The emailed link opens a page with one button, so a mail scanner fetching links verifies nothing.
  router.get('/dashboard/verify-email', async (req, res) => {
    const locale = localeOf(req, res, ctx.cookies);
    const token = typeof req.query.token === 'string' ? req.query.token : '';
    const found = await emailVerification.inspect(token);
    if (!found) {
      page(
        req,
        res,
        locale,
        t(locale, 'verify_title'),
        html`${notice('error', t(locale, 'link_invalid'))}
          <p>${t(locale, 'link_invalid_verify')}</p>`,
        400,
      );
      return;
    }
    page(
      req,
      res,
      locale,
      t(locale, 'verify_title'),
      html`<p>${t(locale, 'verify_confirm', { email: found.email })}</p>
        <form method="post" action="/dashboard/verify-email">
          ${csrfField(preSessionCsrf(req, res, ctx.cookies))} ${langField(locale)}
          <input type="hidden" name="token" value="${token}" />
          <p><button type="submit">${t(locale, 'verify_button')}</button></p>
        </form>`,
    );
  });

  router.post('/dashboard/verify-email', async (req, res) => {
    const locale = localeOf(req, res, ctx.cookies);
    if (!csrfValid(req, res, ctx.cookies, 'pre-session')) {
      page(req, res, locale, t(locale, 'verify_title'), notice('error', t(locale, 'form_expired')), 403);
      return;
    }
    const done = await emailVerification.verify(field(req, 'token'));
    if (!done) {
      page(
        req,
        res,
        locale,
        t(locale, 'verify_title'),
        html`${notice('error', t(locale, 'link_invalid'))}
          <p>${t(locale, 'link_invalid_verify')}</p>`,
        400,
      );
      return;
    }
    page(
      req,
      res,
      locale,
      t(locale, 'verify_title'),
      html`${notice('ok', t(locale, 'verified', { email: done.email }))}
        <p><a href="/dashboard">${t(locale, 'go_dashboard')}</a></p>`,
    );
  });

  return router;
}
