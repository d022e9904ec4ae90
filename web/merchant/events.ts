import { Router } from 'express';
import { html } from '../../html/html';
import { defineMessages } from '../messages';
import type { WebContext } from '../context';
import { facts, failure, merchantView, sendMerchantPage, table } from './frame';

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
  },
});

const iso = (s: string) => `${s.slice(0, 19).replace('T', ' ')} UTC`;

/** `/dashboard/events`: the merchant's event ledger, oldest first as the API pages it, and one event. */
export function eventPages(ctx: WebContext): Router {
  const router = Router();
  const { data } = ctx.services;

  router.get('/dashboard/events', async (req, res) => {
    const view = merchantView(req, res);
    const l = view.locale;
    const type =
      typeof req.query.type === 'string' && /^[a-z_.]{1,100}$/.test(req.query.type) ? req.query.type : '';
    const after = typeof req.query.after === 'string' ? req.query.after.slice(0, 100) : undefined;
    let page;
    try {
      page = await data.events.list(view.scope, {
        limit: 50,
        ...(type && { type }),
        ...(after && { startingAfter: after }),
      });
    } catch (err) {
      const f = failure(err);
      sendMerchantPage(res, view, html``, { title: t(l, 'title'), status: f.status, error: f.message });
      return;
    }
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
      ${
        page.hasMore && last
          ? html`<p>
              <a href="/dashboard/events?${type ? `type=${type}&` : ''}after=${last.id}">${t(l, 'newer')}</a>
            </p>`
          : ''
      }`;
    sendMerchantPage(res, view, body, { title: t(l, 'title') });
  });

  router.get('/dashboard/events/:id', async (req, res) => {
    const view = merchantView(req, res);
    const l = view.locale;
    try {
      const e = await data.events.retrieve(view.scope, String(req.params.id));
      const body = html`${facts([
          [t(l, 'type'), e.type],
          [t(l, 'time'), iso(e.created_at)],
        ])}
        <h2>${t(l, 'data')}</h2>
        <pre tabindex="0">${JSON.stringify(e.data, null, 2)}</pre>`;
      sendMerchantPage(res, view, body, { title: t(l, 'detail', { id: e.id }) });
    } catch (err) {
      const f = failure(err);
      sendMerchantPage(res, view, html``, { title: t(l, 'title'), status: f.status, error: f.message });
    }
  });

  return router;
}
