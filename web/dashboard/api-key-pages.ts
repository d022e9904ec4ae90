import { Router, type Response } from 'express';
import { ApiError } from '../../domain/errors';
import { html, type SafeHtml } from '../../html/html';
import { notice } from '../../html/notice';
import { csrfField, sendPage, tableFrame } from '../layout';
import { requireAction } from './frame';
import { errorMessage, field, requireCsrf, requireUser, sessionOf, type WebContext } from './context';

/** API keys: list, create (live after approval), roll and revoke; a new secret is shown once. */
export function apiKeyPages(ctx: WebContext): Router {
  const router = Router();
  const { accounts, keys } = ctx.services;
  router.use('/dashboard/api-keys', requireUser('merchant'), requireCsrf(ctx), requireAction('manage_keys'));
  const merchantIdOf = (res: Response) => sessionOf(res).user.merchant_id!;

  async function keysPage(
    res: Response,
    opts: {
      secret?: { value: string; livemode: boolean };
      error?: string;
      ok?: string;
      status?: number;
    } = {},
  ) {
    const session = sessionOf(res);
    const merchant = await accounts.load(merchantIdOf(res));
    const approved = merchant.application_status === 'approved';
    const rows = await keys.list(merchant.id);
    const csrf = csrfField(session.session.csrf_token);
    const when = (d: Date | null) => (d ? d.toISOString().slice(0, 16).replace('T', ' ') + ' UTC' : '—');
    const table: SafeHtml[] = rows.map(
      (k) =>
        html`<tr>
          <td>${k.livemode ? 'live' : 'test'}</td>
          <td><code>sk_${k.livemode ? 'live' : 'test'}_…${k.last4}</code></td>
          <td>${when(k.created_at)}</td>
          <td>${when(k.last_used_at)}</td>
          <td>${k.revoked_at ? `revoked ${when(k.revoked_at)}` : 'active'}</td>
          <td>
            ${
              k.revoked_at
                ? ''
                : html`<form class="inline" method="post" action="/dashboard/api-keys/${k.id}/roll">
                      ${csrf}<button type="submit" class="secondary" aria-label="Roll key ending ${k.last4}">
                        Roll
                      </button>
                    </form>
                    <form class="inline" method="post" action="/dashboard/api-keys/${k.id}/revoke">
                      ${csrf}<button type="submit" class="danger" aria-label="Revoke key ending ${k.last4}">
                        Revoke
                      </button>
                    </form>`
            }
          </td>
        </tr>`,
    );
    const body = html`${opts.error ? notice('error', opts.error) : ''}${opts.ok ? notice('ok', opts.ok) : ''}
      ${
        opts.secret
          ? html`<div class="notice ok" role="status">
              <p>
                Your new ${opts.secret.livemode ? 'live' : 'test'} key. Copy it now: it is shown only once.
              </p>
              <code class="secret" data-testid="new-secret" tabindex="0">${opts.secret.value}</code>
            </div>`
          : ''
      }
      <form method="post" action="/dashboard/api-keys">
        ${csrf}
        <label for="mode">New key</label>
        <select id="mode" name="mode">
          <option value="test">Test</option>
          <option value="live" ${approved ? '' : 'disabled'}>
            Live${approved ? '' : ' (after approval)'}
          </option>
        </select>
        <button type="submit">Create key</button>
      </form>
      <h2>Keys</h2>
      ${tableFrame(
        'Keys',
        html`<table>
          <thead>
            <tr>
              <th scope="col">Mode</th>
              <th scope="col">Key</th>
              <th scope="col">Created</th>
              <th scope="col">Last used</th>
              <th scope="col">Status</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            ${table}
          </tbody>
        </table>`,
      )}`;
    sendPage(res, body, { title: 'API keys', session, status: opts.status ?? 200 });
  }

  router.get('/dashboard/api-keys', (_req, res) => keysPage(res));

  router.post('/dashboard/api-keys', async (req, res) => {
    const livemode = field(req, 'mode') === 'live';
    try {
      const { secret } = await keys.create(merchantIdOf(res), livemode);
      await keysPage(res, { secret: { value: secret, livemode } });
    } catch (err) {
      await keysPage(res, { error: errorMessage(err), status: err instanceof ApiError ? err.status : 500 });
    }
  });

  router.post('/dashboard/api-keys/:id/roll', async (req, res) => {
    try {
      const { row, secret } = await keys.roll(merchantIdOf(res), String(req.params.id));
      await keysPage(res, {
        secret: { value: secret, livemode: row.livemode },
        ok: 'The old key is revoked.',
      });
    } catch (err) {
      await keysPage(res, { error: errorMessage(err), status: err instanceof ApiError ? err.status : 500 });
    }
  });

  router.post('/dashboard/api-keys/:id/revoke', async (req, res) => {
    try {
      const row = await keys.revoke(merchantIdOf(res), String(req.params.id));
      await keysPage(res, { ok: `Key ending ${row.last4} revoked.` });
    } catch (err) {
      await keysPage(res, { error: errorMessage(err), status: err instanceof ApiError ? err.status : 500 });
    }
  });

  return router;
}
