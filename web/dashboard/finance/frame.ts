import type { Request, Response } from 'express';
import type { Locale } from '../../../domain/locale';
import { html, type SafeHtml } from '../../../html/html';
import { notice } from '../../../html/notice';
import { csrfField, sendPage } from '../../layout';
import { sessionOf, type WebContext } from '../context';
import type { WebSession } from '../../session';
import type { AuditActor } from '../../../services/finance/runs';
import { chooseLang, FINANCE_STRINGS, type FinanceStrings } from './strings';

/**
 * What every finance page shares: the language, the environment it shows (test or live), the
 * section navigation, the environment toggle and the language switcher.
 */

export interface FinanceView {
  lang: Locale;
  t: FinanceStrings;
  env: 'test' | 'live';
  livemode: boolean;
  session: WebSession;
  csrf: SafeHtml;
}

/** The environment of a page: `env` from the query (GET) or the form (POST); live by default. */
function chooseEnv(req: Request): 'test' | 'live' {
  const fromBody = (req.body as Record<string, unknown> | undefined)?.env;
  const asked = req.method === 'POST' ? fromBody : req.query.env;
  return asked === 'test' ? 'test' : 'live';
}

export function financeView(req: Request, res: Response, _ctx: WebContext): FinanceView {
  const lang = chooseLang(req, res);
  const env = chooseEnv(req);
  const session = sessionOf(res);
  return {
    lang,
    t: FINANCE_STRINGS[lang],
    env,
    livemode: env === 'live',
    session,
    csrf: html`${csrfField(session.session.csrf_token)}<input type="hidden" name="env" value="${env}" />`,
  };
}

/** A finance URL in the view's environment, with extra query parameters. */
export function financeHref(
  view: Pick<FinanceView, 'env'>,
  path: string,
  extra: Record<string, string> = {},
): string {
  const query = new URLSearchParams({ env: view.env, ...extra });
  return `/dashboard/finance${path}?${query.toString()}`;
}

const SECTIONS = [
  { path: '', key: 'runsByDay' },
  { path: '/bank-files', key: 'bankFiles' },
  { path: '/exceptions', key: 'exceptions' },
  { path: '/audit', key: 'auditLog' },
] as const;

function bar(view: FinanceView, section: string, here: string, keep: Record<string, string>): SafeHtml {
  const { t } = view;
  const other = view.env === 'live' ? 'test' : 'live';
  return html`<div class="finance-bar">
    <nav aria-label="${t.finance}">
      <ul>
        ${SECTIONS.map(
          (s) =>
            html`<li>
              <a href="${financeHref(view, s.path)}" ${s.path === section ? html`aria-current="page"` : ''}
                >${t[s.key]}</a
              >
            </li>`,
        )}
      </ul>
    </nav>
    <nav aria-label="${t.environment}">
      ${t.environment}:
      <strong data-testid="finance-env">${view.env === 'live' ? t.live : t.test}</strong>
      <a href="${financeHref({ env: other }, section, keep)}" data-testid="env-switch"
        >${other === 'live' ? t.live : t.test}</a
      >
    </nav>
    <nav aria-label="${t.language}">
      <ul>
        <li>
          <a
            href="${financeHref(view, here, { ...keep, lang: 'is' })}"
            hreflang="is"
            lang="is"
            ${view.lang === 'is' ? html`aria-current="true"` : ''}
            >Íslenska</a
          >
        </li>
        <li>
          <a
            href="${financeHref(view, here, { ...keep, lang: 'en' })}"
            hreflang="en"
            lang="en"
            ${view.lang === 'en' ? html`aria-current="true"` : ''}
            >English</a
          >
        </li>
      </ul>
    </nav>
  </div>`;
}

export interface FinancePageOptions {
  title: string;
  /** The section the page belongs to ('' for runs), highlighted in the navigation. */
  section: string;
  /** The page's own path under /dashboard/finance, for the language switcher. */
  here: string;
  /** Query parameters the environment switch and the language links keep (the runs page's filter). */
  keep?: Record<string, string>;
  status?: number;
  error?: string | undefined;
  ok?: string | undefined;
}

export function sendFinancePage(
  res: Response,
  view: FinanceView,
  body: SafeHtml,
  opts: FinancePageOptions,
): void {
  const page = html`${bar(view, opts.section, opts.here, opts.keep ?? {})}
  ${view.env === 'test' ? notice('warn', view.t.testData) : ''}
  ${opts.error ? notice('error', opts.error) : ''}${opts.ok ? notice('ok', opts.ok) : ''} ${body}`;
  sendPage(res, page, {
    title: opts.title,
    session: view.session,
    lang: view.lang,
    ...(opts.status !== undefined && { status: opts.status }),
  });
}

/** The 404 of a finance page: the record is not in this environment (or not at all). */
export function sendFinanceNotFound(res: Response, view: FinanceView, section: string): void {
  sendFinancePage(res, view, html`<p>${view.t.notFoundText}</p>`, {
    title: view.t.notFound,
    section,
    here: section,
    status: 404,
  });
}

/** The operator as the audit log and the run's "approved by" name them. */
export function operatorActor(view: FinanceView): AuditActor {
  const user = view.session.user;
  return { kind: 'operator', id: user.id, name: user.name ?? user.email };
}
