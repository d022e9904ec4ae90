import express, { type ErrorRequestHandler, type RequestHandler, type Router } from 'express';
import { context } from '../../stack/request-context';
import { html } from '../../html/html';
import { sendPage } from '../layout';
import { cookieNames, loadSession, webSession } from '../session';
import { requireUser, sessionOf, type WebContext } from './context';
import { signInPages } from './sign-in';
import { profilePages } from './profile-pages';
import { themePages } from './theme-pages';
import { apiKeyPages } from './api-key-pages';
import { operatorPages } from './operator-pages';
import { devicePages } from './device-page';
import { financePages } from './finance/pages';
import { merchantPages } from './merchant-pages';
import { merchantNav, merchantView } from './frame';
import { dashboardLocale, rememberLanguage, withLanguage } from './language';
import { defineMessages } from '../messages';
import { isLocale } from '../../domain/locale';
import { signUpPages } from './sign-up-pages';
import { passwordResetPages } from './password-reset-pages';
import { teamPages } from './team-pages';
import { auditFormPosts } from './audit-capture';
import { securityPages } from './security-pages';
import { payoutAccountPages } from './payout-account-pages';
import { secondFactorPages } from './second-factor-pages';

const WEB_PATH = /^\/(dashboard|device)(\/|$)/;

const t = defineMessages({
  en: {
    notFound: 'Not found',
    noPage: 'There is no page here.',
    toDashboard: 'Go to the dashboard',
    error: 'Error',
    tooLarge: 'Form too large',
    failed: 'Something went wrong. Request id:',
  },
  is: {
    notFound: 'Síða fannst ekki',
    noPage: 'Hér er engin síða.',
    toDashboard: 'Fara á stjórnborðið',
    error: 'Villa',
    tooLarge: 'Of stórt eyðublað',
    failed: 'Eitthvað fór úrskeiðis. Auðkenni beiðninnar:',
  },
});

/**
 * The dashboard (`/dashboard/...`) and the device verification page (`/device`): server-rendered
 * HTML over the same services as the API. Only requests under those paths enter; everything else
 * passes through untouched.
 */
export function dashboardPages(deps: Omit<WebContext, 'cookies'>): RequestHandler {
  const router = dashboardRouter(deps);
  return (req, res, next) => (WEB_PATH.test(req.path) ? router(req, res, next) : next());
}

/** One route of the dashboard's router: its method and its path, with `:params`. */
export interface PageRoute {
  method: 'get' | 'post';
  path: string;
}

interface Layer {
  route?: { path: string | string[]; methods: Record<string, boolean> };
  handle?: { stack?: Layer[] };
}

/**
 * Every route of the dashboard, read from the router itself (decision 0118), so a test that visits
 * each page cannot miss one that a later change adds. The router is built over services that are
 * never called: building it only registers handlers.
 */
export function dashboardRoutes(): PageRoute[] {
  const router = dashboardRouter({
    services: {} as WebContext['services'],
    log: {} as WebContext['log'],
    publicBaseUrl: 'http://localhost',
  });
  const out: PageRoute[] = [];
  const walk = (stack: Layer[]) => {
    for (const layer of stack) {
      if (layer.route) {
        const paths = Array.isArray(layer.route.path) ? layer.route.path : [layer.route.path];
        for (const method of Object.keys(layer.route.methods))
          if (method === 'get' || method === 'post') for (const path of paths) out.push({ method, path });
      } else if (layer.handle?.stack) {
        walk(layer.handle.stack);
      }
    }
  };
  walk((router as unknown as { stack: Layer[] }).stack);
  return out;
}

function dashboardRouter(deps: Omit<WebContext, 'cookies'>): Router {
  const ctx: WebContext = { ...deps, cookies: cookieNames(deps.publicBaseUrl) };
  const router = express.Router();
  router.use(express.urlencoded({ extended: true, limit: '64kb', parameterLimit: 100 }));
  router.use(loadSession(deps.services.signIn, ctx.cookies));
  router.use(rememberLanguage(ctx));
  // A member who must set up a second factor sees the security page before anything else (decision 0221).
  router.use((req, res, next) => {
    if (webSession(res)?.session.must_enrol && !/^\/dashboard\/(security|sign-out)(\/|$)/.test(req.path)) {
      res.redirect(303, '/dashboard/security');
      return;
    }
    next();
  });
  router.use((req, res, next) => {
    context(res).route = req.path.replace(/\/[a-z]{2,6}_[0-9A-Za-z]{8,}/g, '/:id');
    next();
  });
  // Every page a merchant member sees carries the merchant header (role-filtered, test/live, is/en).
  router.use((req, res, next) => {
    const session = webSession(res);
    if (session?.user.kind === 'merchant')
      (res.locals as { merchantNav?: unknown }).merchantNav = merchantNav(merchantView(req, res));
    next();
  });
  router.use(auditFormPosts(ctx));
  router.get('/dashboard', requireUser(), (req, res) => {
    const home = sessionOf(res).user.kind === 'operator' ? '/dashboard/operator' : '/dashboard/home';
    // The language asked for is stored by now; it is carried along too, so it holds without cookies.
    res.redirect(303, isLocale(req.query.lang) ? withLanguage(req, home, req.query.lang) : home);
  });
  router.use(signInPages(ctx));
  router.use(secondFactorPages(ctx));
  router.use(signUpPages(ctx));
  router.use(passwordResetPages(ctx));
  router.use(payoutAccountPages(ctx));
  router.use(teamPages(ctx));
  router.use(profilePages(ctx));
  router.use(themePages(ctx));
  router.use(apiKeyPages(ctx));
  router.use(merchantPages(ctx));
  router.use(securityPages(ctx));
  router.use(operatorPages(ctx));
  router.use(financePages(ctx));
  router.use(devicePages(ctx));
  router.use((req, res) => {
    const l = dashboardLocale(req, res);
    sendPage(res, html`<p>${t(l, 'noPage')} <a href="/dashboard">${t(l, 'toDashboard')}</a>.</p>`, {
      title: t(l, 'notFound'),
      session: webSession(res),
      status: 404,
      lang: l,
    });
  });
  const pageError: ErrorRequestHandler = (err: unknown, req, res, _next) => {
    const requestId = context(res).requestId;
    const status = (err as { status?: number; type?: string }).type === 'entity.too.large' ? 413 : 500;
    if (status === 500) deps.log.error({ err, requestId }, 'dashboard page failed');
    if (res.headersSent) return;
    const l = dashboardLocale(req, res);
    sendPage(res, html`<p>${t(l, 'failed')} <code>${requestId}</code>.</p>`, {
      title: t(l, status === 413 ? 'tooLarge' : 'error'),
      session: webSession(res),
      status,
      lang: l,
    });
  };
  router.use(pageError);
  return router;
}
