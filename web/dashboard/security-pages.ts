import { Router, type Request } from 'express';
import { html } from '../../html/html';
import { formatLocalTime } from '../../domain/local-time';
import { auditCsv, type AuditFilter } from '../../services/audit/audit-log-service';
import { defineMessages } from '../messages';
import { requireCsrf, requireUser, sessionOf, type WebContext } from './context';
import { merchantView, nextPage, requireAction, sendMerchantPage, table, viewPreferences } from './frame';

const t = defineMessages({
  en: {
    auditTitle: 'Audit log',
    auditIntro:
      'Every change made to this account through the dashboard or the API: who made it, from which address, when, and what they asked for. Secrets are never kept. Entries are kept for two years and cannot be changed.',
    filters: 'Search the audit log',
    actor: 'Actor (member or key id)',
    object: 'Object id',
    action: 'Action contains',
    from: 'From (date)',
    to: 'To (date)',
    search: 'Search',
    export: 'Export as CSV',
    time: 'Time',
    who: 'Actor',
    address: 'Address',
    what: 'Action',
    about: 'Object',
    changes: 'Change',
    mode: 'Mode',
    none: 'No entries.',
    older: 'Older entries',
    member: 'Member',
    apiKey: 'API key',
    posDevice: 'Till',
    live: 'Live',
    test: 'Test',
    sessionsTitle: 'Your sessions',
    sessionsIntro:
      'The browsers where you are signed in to the dashboard. End any you do not recognise; it is signed out at once.',
    started: 'Signed in',
    lastSeen: 'Last seen',
    browser: 'Browser',
    thisOne: 'This browser',
    end: 'End session',
    endNamed: 'End session {id}',
    ended: 'Session ended.',
    notYours: 'No such session of yours.',
    unknown: 'Unknown',
    endColumn: 'End',
  },
  is: {
    auditTitle: 'Atvikaskrá',
    auditIntro:
      'Allar breytingar á aðganginum í stjórnborðinu eða gegnum API-ið: hver gerði þær, frá hvaða vistfangi, hvenær og hvað var beðið um. Leyndarmál eru aldrei geymd. Færslur eru geymdar í tvö ár og þeim verður ekki breytt.',
    filters: 'Leita í atvikaskrá',
    actor: 'Gerandi (auðkenni meðlims eða lykils)',
    object: 'Auðkenni hlutar',
    action: 'Aðgerð inniheldur',
    from: 'Frá (dagsetning)',
    to: 'Til (dagsetning)',
    search: 'Leita',
    export: 'Sækja sem CSV',
    time: 'Tími',
    who: 'Gerandi',
    address: 'Vistfang',
    what: 'Aðgerð',
    about: 'Hlutur',
    changes: 'Breyting',
    mode: 'Hamur',
    none: 'Engar færslur.',
    older: 'Eldri færslur',
    member: 'Meðlimur',
    apiKey: 'API-lykill',
    posDevice: 'Kassi',
    live: 'Raun',
    test: 'Prufa',
    sessionsTitle: 'Innskráningar þínar',
    sessionsIntro:
      'Vafrarnir þar sem þú ert innskráð(ur) í stjórnborðið. Ljúktu þeim sem þú kannast ekki við; vafrinn er skráður út samstundis.',
    started: 'Innskráning',
    lastSeen: 'Síðast virk',
    browser: 'Vafri',
    thisOne: 'Þessi vafri',
    end: 'Ljúka innskráningu',
    endNamed: 'Ljúka innskráningu {id}',
    ended: 'Innskráningu lokið.',
    notYours: 'Engin slík innskráning þín.',
    unknown: 'Óþekkt',
    endColumn: 'Ljúka',
  },
});

const ID = /^[a-z]{2,6}_[0-9A-Za-z]{1,64}$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** The search form's fields, each bounded and shaped before it reaches a query. */
function filterOf(req: Request): { filter: AuditFilter; query: Record<string, string> } {
  const q = (name: string) => (typeof req.query[name] === 'string' ? req.query[name].trim() : '');
  const query: Record<string, string> = {};
  const filter: AuditFilter = {};
  const actor = q('actor');
  if (ID.test(actor)) filter.actorId = query.actor = actor;
  const object = q('object');
  if (ID.test(object)) filter.objectId = query.object = object;
  const action = q('action').slice(0, 100);
  if (action) filter.action = query.action = action;
  const from = q('from');
  if (DATE.test(from) && !Number.isNaN(Date.parse(from))) {
    filter.from = new Date(`${from}T00:00:00Z`);
    query.from = from;
  }
  const to = q('to');
  if (DATE.test(to) && !Number.isNaN(Date.parse(to))) {
    // Through the end of the day named.
    filter.to = new Date(Date.parse(`${to}T00:00:00Z`) + 86_400_000);
    query.to = to;
  }
  return { filter, query };
}

/** A browser's User-Agent as a short name: enough to tell one's sessions apart. */
function browserName(ua: string | null): string | null {
  if (!ua) return null;
  const name = /(Edg|Firefox|Chrome|Safari|HeadlessChrome)\/[\d.]+/.exec(ua)?.[0] ?? ua.slice(0, 40);
  const os = /(Windows|Mac OS X|Android|iPhone|iPad|Linux)/.exec(ua)?.[0];
  return os ? `${name} · ${os}` : name;
}

/**
 * `/dashboard/audit-log` (owners; decision 0227): the merchant's audit log, newest first, searchable
 * by actor, object, action and dates, and exported as CSV with the same search. `/dashboard/sessions`
 * (every member): the member's own dashboard sessions, each of which they may end.
 */
export function securityPages(ctx: WebContext): Router {
  const router = Router();
  const { auditLog, signIn } = ctx.services;
  router.use(
    ['/dashboard/audit-log', '/dashboard/audit-log.csv', '/dashboard/sessions'],
    requireUser('merchant'),
    requireCsrf(ctx),
    viewPreferences(ctx),
  );
  router.use(['/dashboard/audit-log', '/dashboard/audit-log.csv'], requireAction('read_audit_log'));

  router.get('/dashboard/audit-log', async (req, res) => {
    const view = merchantView(req, res);
    const l = view.locale;
    const { filter, query } = filterOf(req);
    const before =
      typeof req.query.before === 'string' && ID.test(req.query.before) ? req.query.before : undefined;
    const page = await auditLog.list(view.scope.merchantId, filter, { limit: 50, before });
    const search = new URLSearchParams(query).toString();
    const last = page.data[page.data.length - 1];
    const actorLabel = (type: string) =>
      type === 'member' ? t(l, 'member') : type === 'pos_device' ? t(l, 'posDevice') : t(l, 'apiKey');
    const input = (name: string, label: string, type = 'text') =>
      html`<p>
        <label for="audit-${name}">${label}</label>
        <input
          id="audit-${name}"
          name="${name}"
          type="${type}"
          value="${query[name] ?? ''}"
          maxlength="100"
        />
      </p>`;
    const body = html`<p>${t(l, 'auditIntro')}</p>
      <form method="get" action="/dashboard/audit-log" aria-label="${t(l, 'filters')}">
        ${input('actor', t(l, 'actor'))} ${input('object', t(l, 'object'))} ${input('action', t(l, 'action'))}
        ${input('from', t(l, 'from'), 'date')} ${input('to', t(l, 'to'), 'date')}
        <p><button type="submit">${t(l, 'search')}</button></p>
      </form>
      <p><a href="/dashboard/audit-log.csv${search ? `?${search}` : ''}" download>${t(l, 'export')}</a></p>
      ${table(
        t(l, 'auditTitle'),
        [
          t(l, 'time'),
          t(l, 'who'),
          t(l, 'address'),
          t(l, 'what'),
          t(l, 'about'),
          t(l, 'changes'),
          t(l, 'mode'),
        ],
        page.data.map(
          (e) =>
            html`<tr data-entry="${e.id}">
              <td>${formatLocalTime(e.occurred_at, l)}</td>
              <td>${actorLabel(e.actor_type)} <code>${e.actor_id}</code></td>
              <td>${e.client_address ?? '—'}</td>
              <td><code>${e.action}</code></td>
              <td>${e.object_id ? html`<code>${e.object_id}</code>` : '—'}</td>
              <td><code>${JSON.stringify(e.changes).slice(0, 160)}</code></td>
              <td>${e.livemode ? t(l, 'live') : t(l, 'test')}</td>
            </tr>`,
        ),
        t(l, 'none'),
      )}
      ${nextPage(
        page.hasMore && last ? `/dashboard/audit-log?${search ? `${search}&` : ''}before=${last.id}` : null,
        t(l, 'older'),
      )}`;
    sendMerchantPage(res, view, body, { title: t(l, 'auditTitle') });
  });

  router.get('/dashboard/audit-log.csv', async (req, res) => {
    const view = merchantView(req, res);
    const rows = await auditLog.all(view.scope.merchantId, filterOf(req).filter);
    res.type('text/csv; charset=utf-8');
    res.setHeader(
      'Content-Disposition',
      `attachment; filename="audit-log-${new Date().toISOString().slice(0, 10)}.csv"`,
    );
    res.setHeader('Cache-Control', 'no-store');
    res.send(auditCsv(rows));
  });

  async function sessionsPage(
    req: Request,
    res: Parameters<Parameters<typeof router.get>[1]>[1],
    opts: { ok?: string; error?: string; status?: number },
  ) {
    const view = merchantView(req, res);
    const l = view.locale;
    const current = sessionOf(res).session;
    const sessions = await signIn.sessionsOf(current.user_id);
    const body = html`<p>${t(l, 'sessionsIntro')}</p>
      ${table(
        t(l, 'sessionsTitle'),
        [t(l, 'browser'), t(l, 'address'), t(l, 'started'), t(l, 'lastSeen'), t(l, 'endColumn')],
        sessions.map(
          (s) =>
            html`<tr data-session="${s.id}">
              <td>${browserName(s.user_agent) ?? t(l, 'unknown')}</td>
              <td>${s.client_address ?? '—'}</td>
              <td>${formatLocalTime(s.created_at, l)}</td>
              <td>${formatLocalTime(s.last_seen_at, l)}</td>
              <td>
                ${
                  s.id === current.id
                    ? html`<strong>${t(l, 'thisOne')}</strong>`
                    : html`<form method="post" action="/dashboard/sessions/${s.id}/end">
                        ${view.csrf}
                        <button type="submit" aria-label="${t(l, 'endNamed', { id: s.id })}">
                          ${t(l, 'end')}
                        </button>
                      </form>`
                }
              </td>
            </tr>`,
        ),
        t(l, 'unknown'),
      )}`;
    sendMerchantPage(res, view, body, { title: t(l, 'sessionsTitle'), ...opts });
  }

  router.get('/dashboard/sessions', (req, res) => sessionsPage(req, res, {}));

  router.post('/dashboard/sessions/:id/end', async (req, res) => {
    const view = merchantView(req, res);
    const ended = await signIn.endSession(sessionOf(res).user.id, String(req.params.id));
    await sessionsPage(
      req,
      res,
      ended ? { ok: t(view.locale, 'ended') } : { error: t(view.locale, 'notYours'), status: 404 },
    );
  });

  return router;
}
