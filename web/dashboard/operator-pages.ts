import { Router, type Response } from 'express';
import { ApiError } from '../../domain/errors';
import { APPLICATION_STATUSES, type ApplicationStatus } from '../../domain/capabilities';
import { presentMerchant } from '../../services/merchant/merchant-account';
import { html } from '../../html/html';
import { notice } from '../../html/notice';
import { csrfField, sendPage, tableFrame } from '../layout';
import { field, requireCsrf, requireUser, sessionOf, type WebContext } from './context';

/** Operators review applications and run the onboarding steps (the operator API's twin). */
export function operatorPages(ctx: WebContext): Router {
  const router = Router();
  const { accounts } = ctx.services;
  router.use('/dashboard/operator', requireUser('operator'), requireCsrf(ctx));

  router.get('/dashboard/operator', async (req, res) => {
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
          <td>${m.application_submitted_at?.toISOString().slice(0, 10) ?? '—'}</td>
        </tr>`,
    );
    const body = html`<nav aria-label="Filter">
        <ul>
          ${APPLICATION_STATUSES.map(
            (s) =>
              html`<li>
                <a href="/dashboard/operator?status=${s}" ${s === status ? html`aria-current="page"` : ''}
                  >${s.replace('_', ' ')}</a
                >
              </li>`,
          )}
        </ul>
      </nav>
      ${tableFrame(
        `Applications: ${status.replace('_', ' ')}`,
        html`<table>
          <caption>
            Applications: ${status.replace('_', ' ')}
          </caption>
          <thead>
            <tr>
              <th scope="col">Merchant</th>
              <th scope="col">Kennitala</th>
              <th scope="col">Submitted</th>
            </tr>
          </thead>
          <tbody>
            ${rows}
          </tbody>
        </table>`,
      )}`;
    sendPage(res, body, { title: 'Applications', session: sessionOf(res) });
  });

  async function merchantPage(
    res: Response,
    id: string,
    opts: { error?: string; ok?: string; status?: number } = {},
  ) {
    const session = sessionOf(res);
    const m = presentMerchant(await accounts.load(id), true);
    const csrf = csrfField(session.session.csrf_token);
    const action = (path: string, label: string, extra = html``) =>
      html`<form method="post" action="/dashboard/operator/merchants/${m.id}/${path}">
        ${csrf}${extra}<button type="submit">${label}</button>
      </form>`;
    const a = m.legal_address;
    const body = html`${opts.error ? notice('error', opts.error) : ''}${opts.ok ? notice('ok', opts.ok) : ''}
      ${m.warnings.map((w) => notice('warn', w.message))}
      <dl>
        <dt>Name</dt>
        <dd>${m.name}</dd>
        <dt>Type</dt>
        <dd>${m.merchant_type ?? '—'}</dd>
        <dt>Kennitala</dt>
        <dd>${m.kennitala ?? '—'}</dd>
        <dt>Phone</dt>
        <dd>${m.phone ?? '—'}</dd>
        <dt>Website</dt>
        <dd>${m.website ?? '—'}</dd>
        <dt>What they sell</dt>
        <dd>${m.business_description ?? '—'}</dd>
        <dt>Bank account</dt>
        <dd>${m.bank_account ?? '—'}</dd>
        <dt>Legal address</dt>
        <dd>${a ? `${a.street}, ${a.postalCode} ${a.city}, ${a.country}` : '—'}</dd>
        <dt>Application</dt>
        <dd data-testid="application-status">${m.application.status}</dd>
        <dt>Enabled live</dt>
        <dd data-testid="live-enabled">${m.enabled_capabilities.join(', ') || 'nothing'}</dd>
        <dt>POS</dt>
        <dd>${m.features.pos ? 'on' : 'off'}</dd>
      </dl>
      <h2>Actions</h2>
      ${m.application.status === 'in_review' ? action('approve', 'Approve application') : ''}
      ${
        m.application.status === 'in_review'
          ? action(
              'reject',
              'Reject application',
              html`<label for="reason">Reason (shown to the merchant)</label
                ><input id="reason" name="reason" required maxlength="1000" />`,
            )
          : ''
      }
      ${m.application.status === 'approved' && m.capabilities.payments.status !== 'active' ? action('card-acquirer', 'Card acquirer approved: activate cards') : ''}
      ${m.capabilities.claims.requirements.includes('claims_agreement') ? action('claims-agreement', 'Claims agreement signed') : ''}
      ${action('pos', m.features.pos ? 'Switch POS off' : 'Switch POS on', html`<input type="hidden" name="pos" value="${m.features.pos ? 'false' : 'true'}" />`)}`;
    sendPage(res, body, { title: m.name, session, status: opts.status ?? 200 });
  }

  router.get('/dashboard/operator/merchants/:id', (req, res) => merchantPage(res, String(req.params.id)));

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
          sendPage(res, html`<p>Unknown action.</p>`, {
            title: 'Not found',
            session: sessionOf(res),
            status: 404,
          });
          return;
      }
      await merchantPage(res, id, { ok: 'Done.' });
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      if (err.status === 404) {
        sendPage(res, html`<p>${err.message}</p>`, {
          title: 'Not found',
          session: sessionOf(res),
          status: 404,
        });
        return;
      }
      await merchantPage(res, id, { error: err.message, status: err.status });
    }
  });

  return router;
}
