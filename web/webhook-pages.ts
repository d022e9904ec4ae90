import { Router, type Response } from 'express';
import { ApiError } from '../domain/errors';
import { html, type SafeHtml } from '../html/html';
import { notice } from '../html/notice';
import type { ChannelObject } from '../services/channels/notification-channel-object';
import { csrfField, sendPage } from './layout';
import { requireAction } from './merchant/frame';
import { errorMessage, field, requireCsrf, requireUser, sessionOf, type WebContext } from './context';

const when = (unix: number | null) =>
  unix === null ? '—' : new Date(unix * 1000).toISOString().slice(0, 16).replace('T', ' ') + ' UTC';

/**
 * `/dashboard/webhooks`: the merchant's notification channels of both modes, a notice for each one
 * the service disabled because its deliveries kept failing, and the button that re-enables a
 * channel (decision 0112).
 */
export function webhookPages(ctx: WebContext): Router {
  const router = Router();
  const { channels } = ctx.services;
  router.use(
    '/dashboard/webhooks',
    requireUser('merchant'),
    requireCsrf(ctx),
    requireAction('manage_webhooks'),
  );
  const scopeOf = (res: Response, livemode: boolean) => ({
    merchantId: sessionOf(res).user.merchant_id!,
    livemode,
  });

  async function webhooksPage(res: Response, opts: { error?: string; ok?: string; status?: number } = {}) {
    const session = sessionOf(res);
    const csrf = csrfField(session.session.csrf_token);
    const all: ChannelObject[] = [];
    for (const livemode of [false, true])
      all.push(...(await channels.list(scopeOf(res, livemode), { limit: 100 })).data);
    const failing = all.filter((c) => c.disabled_reason === 'failing_deliveries');
    const notices: SafeHtml[] = failing.map((c) =>
      notice(
        'warn',
        html`Webhook channel ${c.id} (${c.livemode ? 'live' : 'test'}, ${c.config.url}) was disabled on
        ${when(c.disabled_at)} after ${ctx.services.channelAutoDisable.afterFailures} deliveries failed within
        ${ctx.services.channelAutoDisable.windowHours} hours and none succeeded. Events since then were not
        sent to it; fix the endpoint, then re-enable it.`,
      ),
    );
    const rows = all.map(
      (c) =>
        html`<tr>
          <td>${c.livemode ? 'live' : 'test'}</td>
          <td><code>${c.id}</code></td>
          <td>${c.config.url}</td>
          <td>
            ${c.status}${
              c.disabled_reason === 'failing_deliveries'
                ? ' (deliveries kept failing)'
                : c.disabled_reason === 'requested'
                  ? ' (by request)'
                  : ''
            }
          </td>
          <td>
            ${
              c.status === 'disabled'
                ? html`<form class="inline" method="post" action="/dashboard/webhooks/${c.id}/enable">
                    ${csrf}<input type="hidden" name="mode" value="${c.livemode ? 'live' : 'test'}" />
                    <button type="submit" aria-label="Re-enable channel ${c.id}">Re-enable</button>
                  </form>`
                : ''
            }
          </td>
        </tr>`,
    );
    const body = html`${opts.error ? notice('error', opts.error) : ''}${opts.ok ? notice('ok', opts.ok) : ''}
      ${notices}
      <h1>Webhooks</h1>
      ${
        all.length === 0
          ? html`<p>
              No notification channels yet. Create one with <code>POST /v1/notification-channels</code>.
            </p>`
          : html`<table>
              <thead>
                <tr>
                  <th scope="col">Mode</th>
                  <th scope="col">Channel</th>
                  <th scope="col">URL</th>
                  <th scope="col">Status</th>
                  <th scope="col"><span class="skip">Actions</span></th>
                </tr>
              </thead>
              <tbody>
                ${rows}
              </tbody>
            </table>`
      }`;
    sendPage(res, body, { title: 'Webhooks', session, status: opts.status ?? 200 });
  }

  router.get('/dashboard/webhooks', (_req, res) => webhooksPage(res));

  router.post('/dashboard/webhooks/:id/enable', async (req, res) => {
    const scope = scopeOf(res, field(req, 'mode') === 'live');
    try {
      const channel = await channels.update(scope, String(req.params.id), { status: 'enabled' });
      await webhooksPage(res, { ok: `Channel ${channel.id} is enabled again.` });
    } catch (err) {
      await webhooksPage(res, {
        error: errorMessage(err),
        status: err instanceof ApiError ? err.status : 500,
      });
    }
  });

  return router;
}
