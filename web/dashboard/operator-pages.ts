import { Router, type Request, type Response } from 'express';
import { ApiError } from '../../domain/errors';
import { APPLICATION_STATUSES, type ApplicationStatus } from '../../domain/capabilities';
import { formatLocalTime } from '../../domain/local-time';
import type { Locale } from '../../domain/locale';
import { presentMerchant } from '../../services/merchant/merchant-account';
import { html } from '../../html/html';
import { notice } from '../../html/notice';
import { csrfField, sendPage, tableFrame } from '../layout';
import { defineMessages } from '../messages';
import { field, requireCsrf, requireUser, sessionOf, type WebContext } from './context';
import { dashboardLocale } from './language';

const t = defineMessages({
  en: {
    applications: 'Applications',
    filter: 'Filter',
    status:
      '{status, select, unsubmitted {unsubmitted} in_review {in review} approved {approved} rejected {rejected} other {{status}}}',
    caption: 'Applications: {status}',
    merchant: 'Merchant',
    kennitala: 'Kennitala',
    submitted: 'Submitted',
    none: 'No applications here.',
    name: 'Name',
    type: 'Type',
    merchantType: '{type, select, company {company} individual {individual} other {{type}}}',
    phone: 'Phone',
    website: 'Website',
    sells: 'What they sell',
    bankAccount: 'Bank account',
    legalAddress: 'Legal address',
    application: 'Application',
    enabledLive: 'Enabled live',
    nothing: 'nothing',
    pos: 'POS',
    on: 'on',
    off: 'off',
    actions: 'Actions',
    approve: 'Approve application',
    reject: 'Reject application',
    reason: 'Reason (shown to the merchant)',
    cardAcquirer: 'Card acquirer approved: activate cards',
    claimsAgreement: 'Claims agreement signed',
    posOff: 'Switch POS off',
    posOn: 'Switch POS on',
    done: 'Done.',
    notFound: 'Not found',
    unknownAction: 'Unknown action.',
    resetTitle: 'Reset a second factor',
    resetIntro:
      'For a member who lost both their authenticator and their recovery codes, once you have confirmed who they are. Their authenticator app, recovery codes and sessions are removed, and the audit log records that you did it.',
    resetEmail: 'Member’s email',
    resetButton: 'Reset second factor',
    resetDone: 'The second factor of {email} is reset. They set up a new one at their next sign-in.',
  },
  is: {
    applications: 'Umsóknir',
    filter: 'Sía',
    status:
      '{status, select, unsubmitted {ósend} in_review {í yfirferð} approved {samþykkt} rejected {hafnað} other {{status}}}',
    caption: 'Umsóknir: {status}',
    merchant: 'Söluaðili',
    kennitala: 'Kennitala',
    submitted: 'Innsend',
    none: 'Engar umsóknir hér.',
    name: 'Nafn',
    type: 'Tegund',
    merchantType: '{type, select, company {fyrirtæki} individual {einstaklingur} other {{type}}}',
    phone: 'Sími',
    website: 'Vefsíða',
    sells: 'Hvað er selt',
    bankAccount: 'Bankareikningur',
    legalAddress: 'Lögheimili',
    application: 'Umsókn',
    enabledLive: 'Virkt í raunumhverfi',
    nothing: 'ekkert',
    pos: 'Afgreiðslukerfi',
    on: 'virkt',
    off: 'óvirkt',
    actions: 'Aðgerðir',
    approve: 'Samþykkja umsókn',
    reject: 'Hafna umsókn',
    reason: 'Ástæða (söluaðilinn sér hana)',
    cardAcquirer: 'Færsluhirðir hefur samþykkt: virkja kort',
    claimsAgreement: 'Kröfusamningur undirritaður',
    posOff: 'Slökkva á afgreiðslukerfi',
    posOn: 'Kveikja á afgreiðslukerfi',
    done: 'Lokið.',
    notFound: 'Fannst ekki',
    unknownAction: 'Óþekkt aðgerð.',
    resetTitle: 'Endurstilla annað auðkenni',
    resetIntro:
      'Fyrir notanda sem hefur týnt bæði auðkenningarforritinu og endurheimtarkóðunum, eftir að þú hefur staðfest hver hann er. Auðkenningarforrit, endurheimtarkóðar og innskráningar hans eru fjarlægð og atvikaskráin geymir að þú gerðir það.',
    resetEmail: 'Netfang notanda',
    resetButton: 'Endurstilla annað auðkenni',
    resetDone: 'Annað auðkenni {email} er endurstillt. Nýtt er sett upp við næstu innskráningu.',
  },
});

/** An application status as the status filter and the merchant page word it. */
const statusLabel = (l: Locale, status: string) => t(l, 'status', { status });

/**
 * Operators review applications and run the onboarding steps (the operator API's twin), in the
 * operator's language (web/dashboard/language.ts). Form fields and actions are the same in both.
 */
export function operatorPages(ctx: WebContext): Router {
  const router = Router();
  const { accounts } = ctx.services;
  router.use('/dashboard/operator', requireUser('operator'), requireCsrf(ctx));

  router.get('/dashboard/operator', async (req, res) => {
    const l = dashboardLocale(req, res);
    const wanted = typeof req.query.status === 'string' ? req.query.status : '';
    const status = (APPLICATION_STATUSES as readonly string[]).includes(wanted)
      ? (wanted as ApplicationStatus)
      : 'in_review';
    const applications = await accounts.listApplications({ status, limit: 100 });
    const rows = applications.map(
      (m) =>
        html`<tr>
          <td><a href="/dashboard/operator/merchants/${m.id}">${m.name}</a></td>
          <td>${m.kennitala ?? '—'}</td>
          <td>${formatLocalTime(m.application_submitted_at, l)}</td>
        </tr>`,
    );
    const caption = t(l, 'caption', { status: statusLabel(l, status) });
    const body = html`<nav aria-label="${t(l, 'filter')}">
        <ul>
          ${APPLICATION_STATUSES.map(
            (s) =>
              html`<li>
                <a href="/dashboard/operator?status=${s}" ${s === status ? html`aria-current="page"` : ''}
                  >${statusLabel(l, s)}</a
                >
              </li>`,
          )}
        </ul>
      </nav>
      ${tableFrame(
        caption,
        html`<table>
          <caption>
            ${caption}
          </caption>
          <thead>
            <tr>
              <th scope="col">${t(l, 'merchant')}</th>
              <th scope="col">${t(l, 'kennitala')}</th>
              <th scope="col">${t(l, 'submitted')}</th>
            </tr>
          </thead>
          <tbody>
            ${rows}
          </tbody>
        </table>`,
      )}`;
    sendPage(res, body, {
      title: t(l, 'applications'),
      session: sessionOf(res),
      lang: l,
      here: `/dashboard/operator${req.query.status === status ? `?status=${status}` : ''}`,
    });
  });

  async function merchantPage(
    req: Request,
    res: Response,
    id: string,
    opts: { error?: string; ok?: string; status?: number } = {},
  ) {
    const l = dashboardLocale(req, res);
    const session = sessionOf(res);
    const m = presentMerchant(await accounts.load(id), true);
    const csrf = csrfField(session.session.csrf_token);
    const action = (path: string, label: string, extra = html``) =>
      html`<form method="post" action="/dashboard/operator/merchants/${m.id}/${path}">
        ${csrf}${extra}<button type="submit">${label}</button>
      </form>`;
    const a = m.legal_address;
    // English shows the status as the API names it; Icelandic in words.
    const applicationStatus = l === 'en' ? m.application.status : statusLabel(l, m.application.status);
    const body = html`${opts.error ? notice('error', opts.error) : ''}${opts.ok ? notice('ok', opts.ok) : ''}
      ${m.warnings.map((w) => notice('warn', w.message))}
      <dl>
        <dt>${t(l, 'name')}</dt>
        <dd>${m.name}</dd>
        <dt>${t(l, 'type')}</dt>
        <dd>${m.merchant_type ? t(l, 'merchantType', { type: m.merchant_type }) : '—'}</dd>
        <dt>${t(l, 'kennitala')}</dt>
        <dd>${m.kennitala ?? '—'}</dd>
        <dt>${t(l, 'phone')}</dt>
        <dd>${m.phone ?? '—'}</dd>
        <dt>${t(l, 'website')}</dt>
        <dd>${m.website ?? '—'}</dd>
        <dt>${t(l, 'sells')}</dt>
        <dd>${m.business_description ?? '—'}</dd>
        <dt>${t(l, 'bankAccount')}</dt>
        <dd>${m.bank_account ?? '—'}</dd>
        <dt>${t(l, 'legalAddress')}</dt>
        <dd>${a ? `${a.street}, ${a.postalCode} ${a.city}, ${a.country}` : '—'}</dd>
        <dt>${t(l, 'application')}</dt>
        <dd data-testid="application-status">${applicationStatus}</dd>
        <dt>${t(l, 'enabledLive')}</dt>
        <dd data-testid="live-enabled">${m.enabled_capabilities.join(', ') || t(l, 'nothing')}</dd>
        <dt>${t(l, 'pos')}</dt>
        <dd>${m.features.pos ? t(l, 'on') : t(l, 'off')}</dd>
      </dl>
      <h2>${t(l, 'actions')}</h2>
      ${m.application.status === 'in_review' ? action('approve', t(l, 'approve')) : ''}
      ${
        m.application.status === 'in_review'
          ? action(
              'reject',
              t(l, 'reject'),
              html`<label for="reason">${t(l, 'reason')}</label
                ><input id="reason" name="reason" required maxlength="1000" />`,
            )
          : ''
      }
      ${m.application.status === 'approved' && m.capabilities.payments.status !== 'active' ? action('card-acquirer', t(l, 'cardAcquirer')) : ''}
      ${m.capabilities.claims.requirements.includes('claims_agreement') ? action('claims-agreement', t(l, 'claimsAgreement')) : ''}
      ${action('pos', m.features.pos ? t(l, 'posOff') : t(l, 'posOn'), html`<input type="hidden" name="pos" value="${m.features.pos ? 'false' : 'true'}" />`)}`;
    sendPage(res, body, {
      title: m.name,
      session,
      status: opts.status ?? 200,
      lang: l,
      here: `/dashboard/operator/merchants/${m.id}`,
    });
  }

  function notFound(req: Request, res: Response, text: string) {
    const l = dashboardLocale(req, res);
    sendPage(res, html`<p>${text}</p>`, {
      title: t(l, 'notFound'),
      session: sessionOf(res),
      status: 404,
      lang: l,
    });
  }

  // A member's lost second factor, reset by an operator and audited (decision 0221).
  function resetPage(
    req: Request,
    res: Response,
    opts: { error?: string; ok?: string; status?: number } = {},
  ) {
    const l = dashboardLocale(req, res);
    const session = sessionOf(res);
    const body = html`${opts.error ? notice('error', opts.error) : ''}${opts.ok ? notice('ok', opts.ok) : ''}
      <p>${t(l, 'resetIntro')}</p>
      <form method="post" action="/dashboard/operator/second-factor">
        ${csrfField(session.session.csrf_token)}
        <label for="email">${t(l, 'resetEmail')}</label>
        <input id="email" name="email" type="email" required maxlength="320" />
        <p><button type="submit">${t(l, 'resetButton')}</button></p>
      </form>`;
    sendPage(res, body, {
      title: t(l, 'resetTitle'),
      session,
      status: opts.status ?? 200,
      lang: l,
      here: '/dashboard/operator/second-factor',
    });
  }

  router.get('/dashboard/operator/second-factor', (req, res) => resetPage(req, res));

  router.post('/dashboard/operator/second-factor', async (req, res) => {
    const operator = sessionOf(res).user;
    try {
      const member = await ctx.services.secondFactor.resetByOperator(
        { kind: 'operator', id: operator.id, name: operator.name ?? operator.email },
        field(req, 'email').trim().slice(0, 320),
      );
      resetPage(req, res, { ok: t(dashboardLocale(req, res), 'resetDone', { email: member.email }) });
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      resetPage(req, res, { error: err.message, status: err.status });
    }
  });

  router.get('/dashboard/operator/merchants/:id', (req, res) =>
    merchantPage(req, res, String(req.params.id)),
  );

  router.post('/dashboard/operator/merchants/:id/:action', async (req, res) => {
    const id = String(req.params.id);
    const operator = sessionOf(res).user;
    try {
      switch (req.params.action) {
        case 'approve':
          await accounts.approve(id, operator.id);
          break;
        case 'reject': {
          const reason = field(req, 'reason').trim();
          if (reason.length < 1 || reason.length > 1000)
            throw new ApiError(
              400,
              'invalid_request_error',
              'A reason of 1 to 1000 characters is required',
              'parameter_invalid',
              'reason',
            );
          await accounts.reject(id, operator.id, reason);
          break;
        }
        case 'card-acquirer':
          await accounts.activateCardAcquirer(id);
          break;
        case 'claims-agreement':
          await accounts.signClaimsAgreement(id);
          break;
        case 'pos':
          await accounts.setFeatures(id, { pos: field(req, 'pos') === 'true' });
          break;
        default:
          notFound(req, res, t(dashboardLocale(req, res), 'unknownAction'));
          return;
      }
      await merchantPage(req, res, id, { ok: t(dashboardLocale(req, res), 'done') });
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      if (err.status === 404) {
        notFound(req, res, err.message);
        return;
      }
      await merchantPage(req, res, id, { error: err.message, status: err.status });
    }
  });

  return router;
}
