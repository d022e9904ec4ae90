import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import { context } from '../stack/request-context';
import { html } from '../html/html';
import { sendPage } from './layout';
import { cookieNames, loadSession, webSession } from './session';
import { requireUser, sessionOf, type WebContext } from './context';
import { signInPages } from './sign-in';
import { profilePages } from './profile-pages';
import { themePages } from './theme-pages';
import { apiKeyPages } from './api-key-pages';
import { operatorPages } from './operator-pages';
import { devicePages } from './device-page';
import { financePages } from './finance/pages';
import { webhookPages } from './webhook-pages';
import { signUpPages } from './sign-up-pages';
import { passwordResetPages } from './password-reset-pages';
import { teamPages } from './team-pages';

const WEB_PATH = /^\/(dashboard|device)(\/|$)/;

/**
 * The dashboard (`/dashboard/...`) and the device verification page (`/device`): server-rendered
 * HTML over the same services as the API. Only requests under those paths enter; everything else
 * passes through untouched.
 */
export function dashboardPages(deps: Omit<WebContext, 'cookies'>): RequestHandler {
  const ctx: WebContext = { ...deps, cookies: cookieNames(deps.publicBaseUrl) };
  const router = express.Router();
  router.use(express.urlencoded({ extended: true, limit: '64kb', parameterLimit: 100 }));
  router.use(loadSession(deps.services.signIn, ctx.cookies));
  router.use((req, res, next) => {
    context(res).route = req.path.replace(/\/(acct|key|stl|bf|bex|nc|usr|inv)_[0-9A-Za-z]+/g, '/:id');
    next();
  });
  router.get('/dashboard', requireUser(), (_req, res) => {
    res.redirect(303, sessionOf(res).user.kind === 'operator' ? '/dashboard/operator' : '/dashboard/profile');
  });
  router.use(signInPages(ctx));
  router.use(signUpPages(ctx));
  router.use(passwordResetPages(ctx));
  router.use(teamPages(ctx));
  router.use(profilePages(ctx));
  router.use(themePages(ctx));
  router.use(apiKeyPages(ctx));
  router.use(webhookPages(ctx));
  router.use(operatorPages(ctx));
  router.use(financePages(ctx));
  router.use(devicePages(ctx));
  router.use((_req, res) => {
    sendPage(res, html`<p>There is no page here. <a href="/dashboard">Go to the dashboard</a>.</p>`, {
      title: 'Not found',
      session: webSession(res),
      status: 404,
    });
  });
  const pageError: ErrorRequestHandler = (err: unknown, _req, res, _next) => {
    const requestId = context(res).requestId;
    const status = (err as { status?: number; type?: string }).type === 'entity.too.large' ? 413 : 500;
    if (status === 500) deps.log.error({ err, requestId }, 'dashboard page failed');
    if (res.headersSent) return;
    sendPage(res, html`<p>Something went wrong. Request id: <code>${requestId}</code>.</p>`, {
      title: status === 413 ? 'Form too large' : 'Error',
      session: webSession(res),
      status,
    });
  };
  router.use(pageError);
  return (req, res, next) => (WEB_PATH.test(req.path) ? router(req, res, next) : next());
}
