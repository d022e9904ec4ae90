import { Router, type Request, type Response } from 'express';
import { html } from '../../html/html';
import { defineMessages } from '../messages';
import { field, type WebContext } from './context';
import {
  afterCursor,
  facts,
  failure,
  loadOrSendFailure,
  merchantView,
  nextPage,
  requireAction,
  sendMerchantPage,
  table,
} from './frame';

const t = defineMessages({
  en: {
    title: 'Events',
    filters: 'Filter events',
    type: 'Type',
    apply: 'Apply',
    event: 'Event',
    time: 'Time',
    none: 'No events.',
    newer: 'Later events',
    detail: 'Event {id}',
    data: 'Data',
    resendTitle: 'Send to a webhook channel',
    resendHint:
      'Sends this event to the channel now: its delivery once more, or a first one if the channel never had it.',
    channel: 'Webhook channel',
    resend: 'Send to channel',
    resent: 'Sent to {channel} as delivery {delivery}.',
    noChannels: 'No enabled webhook channel to send it to.',
    badChannel: 'Choose a channel (channel).',
  },
  is: {
    title: 'Atburðir',
    filters: 'Sía atburði',
    type: 'Tegund',
    apply: 'Sía',
    event: 'Atburður',
    time: 'Tími',
    none: 'Engir atburðir.',
    newer: 'Síðari atburðir',
    detail: 'Atburður {id}',
    data: 'Gögn',
    resendTitle: 'Senda á vefkrókarás',
    resendHint:
      'Sendir atburðinn á rásina núna: sendingu hans aftur, eða fyrstu sendingu ef rásin fékk hann aldrei.',
    channel: 'Vefkrókarás',
    resend: 'Senda á rás',
    resent: 'Sent á {channel} sem sending {delivery}.',
    noChannels: 'Engin virk vefkrókarás til að senda á.',
    badChannel: 'Veldu rás (channel).',
  },
});

const iso = (s: string) => `${s.slice(0, 19).replace('T', ' ')} UTC`;

/** `/dashboard/events`: the merchant's event ledger, oldest first as the API pages it, and one event. */
export function eventPages(ctx: WebContext): Router {
  const router = Router();
  const { data, channels } = ctx.services;

  router.get('/dashboard/events', async (req, res) => {
    const view = merchantView(req, res);
    const l = view.locale;
    const type =
      typeof req.query.type === 'string' && /^[a-z_.]{1,100}$/.test(req.query.type) ? req.query.type : '';
    const after = afterCursor(req);
    const page = await loadOrSendFailure(res, view, t(l, 'title'), () =>
      data.events.list(view.scope, {
        limit: 50,
        ...(type && { type }),
        ...(after && { startingAfter: after }),
      }),
    );
    if (!page) return;
    const last = page.data[page.data.length - 1];
    const body = html`<form method="get" action="/dashboard/events" aria-label="${t(l, 'filters')}">
        <label for="type">${t(l, 'type')}</label>
        <input id="type" name="type" value="${type}" maxlength="100" placeholder="payment_intent.succeeded" />
        <button type="submit">${t(l, 'apply')}</button>
      </form>
      ${table(
        t(l, 'title'),
        [t(l, 'event'), t(l, 'type'), t(l, 'time')],
        page.data.map(
          (e) =>
            html`<tr>
              <td><a href="/dashboard/events/${e.id}">${e.id}</a></td>
              <td>${e.type}</td>
              <td>${iso(e.created_at)}</td>
            </tr>`,
        ),
        t(l, 'none'),
      )}
      ${nextPage(
        page.hasMore && last ? `/dashboard/events?${type ? `type=${type}&` : ''}after=${last.id}` : null,
        t(l, 'newer'),
      )}`;
    sendMerchantPage(res, view, body, { title: t(l, 'title') });
  });

  async function detail(req: Request, res: Response, opts: { ok?: string; error?: string; status?: number }) {
    const view = merchantView(req, res);
    const l = view.locale;
    try {
      const e = await data.events.retrieve(view.scope, String(req.params.id));
      const enabled = view.can('manage_webhooks')
        ? (await channels.list(view.scope, { limit: 100 })).data.filter((c) => c.status === 'enabled')
        : [];
      const resend = !view.can('manage_webhooks')
        ? ''
        : html`<section aria-labelledby="resend-title">
            <h2 id="resend-title">${t(l, 'resendTitle')}</h2>
            ${
              enabled.length === 0
                ? html`<p>${t(l, 'noChannels')} <a href="/dashboard/webhooks">${t(l, 'channel')}</a></p>`
                : html`<form method="post" action="/dashboard/events/${e.id}/resend">
                    ${view.csrf}
                    <label for="resend-channel">${t(l, 'channel')}</label>
                    <select id="resend-channel" name="channel" aria-describedby="resend-hint">
                      ${enabled.map((c) => html`<option value="${c.id}">${c.id} · ${c.config.url}</option>`)}
                    </select>
                    <small id="resend-hint">${t(l, 'resendHint')}</small>
                    <p><button type="submit">${t(l, 'resend')}</button></p>
                  </form>`
            }
          </section>`;
      const body = html`${facts([
          [t(l, 'type'), e.type],
          [t(l, 'time'), iso(e.created_at)],
        ])}
        <h2>${t(l, 'data')}</h2>
        <pre tabindex="0">${JSON.stringify(e.data, null, 2)}</pre>
        ${resend}`;
      sendMerchantPage(res, view, body, {
        title: t(l, 'detail', { id: e.id }),
        status: opts.status ?? 200,
        ok: opts.ok,
        error: opts.error,
      });
    } catch (err) {
      const f = failure(err);
      sendMerchantPage(res, view, html``, { title: t(l, 'title'), status: f.status, error: f.message });
    }
  }

  router.get('/dashboard/events/:id', (req, res) => detail(req, res, {}));

  // The API's POST /v1/events/:id/resend, from the event's page (decision 0147).
  router.post('/dashboard/events/:id/resend', requireAction('manage_webhooks'), async (req, res) => {
    const view = merchantView(req, res);
    const channel = field(req, 'channel').trim();
    if (!/^nc_[0-9A-Za-z]{1,64}$/.test(channel))
      return detail(req, res, { error: t(view.locale, 'badChannel'), status: 400 });
    try {
      const d = await data.deliveries.resendEvent(view.scope, String(req.params.id), channel);
      await detail(req, res, { ok: t(view.locale, 'resent', { channel: d.channel, delivery: d.id }) });
    } catch (err) {
      const f = failure(err);
      await detail(req, res, { error: f.message, status: f.status });
    }
  });

  return router;
}
