import { Router, type Request, type Response } from 'express';
import { html, type SafeHtml } from '../../html/html';
import { notice } from '../../html/notice';
import { ALL_EVENTS, EVENT_TYPES } from '../../domain/event-types';
import { defineMessages } from '../messages';
import { field, type WebContext } from './context';
import { failure, line, merchantView, sendMerchantPage, table, when } from './frame';

const t = defineMessages({
  en: {
    title: 'Webhooks',
    channel: 'Channel',
    url: 'URL',
    status: 'Status',
    events: 'Events',
    created: 'Created',
    actions: 'Actions',
    none: 'No webhook channels yet.',
    create: 'New webhook channel',
    endpoint: 'Endpoint URL',
    endpointHint:
      '{mode, select, live {https on a public host} other {http or https; a loopback address is allowed in test mode}}. Each delivery is signed with the channel’s secret.',
    subscribe: 'Events to send',
    allEvents: 'All events, including types added later ({all})',
    description: 'Description (optional)',
    createButton: 'Create channel',
    badUrl: 'Enter the endpoint’s address (config.url).',
    badEvents: 'Choose at least one event (event_subscriptions).',
    badDescription: 'The description is one line of at most 500 characters (description).',
    failing: 'deliveries kept failing',
    requested: 'by request',
    disabledNotice:
      'Channel {id} ({url}) was disabled on {when} after {failures} deliveries failed within {hours} hours and none succeeded. Events since then were not sent to it; fix the endpoint, then re-enable it.',
    enable: 'Re-enable',
    enabledOk: 'Channel {id} is enabled again.',
    enabled: 'enabled',
    disabled: 'disabled',
  },
  is: {
    title: 'Vefkrókar',
    channel: 'Rás',
    url: 'Slóð',
    status: 'Staða',
    events: 'Atburðir',
    created: 'Stofnuð',
    actions: 'Aðgerðir',
    none: 'Engar vefkrókarásir enn.',
    create: 'Ný vefkrókarás',
    endpoint: 'Slóð móttakara',
    endpointHint:
      '{mode, select, live {https á opinberum hýsli} other {http eða https; staðvært vistfang (loopback) er leyft í prufuham}}. Hver sending er undirrituð með leyndarlykli rásarinnar.',
    subscribe: 'Atburðir sem eru sendir',
    allEvents: 'Allir atburðir, líka tegundir sem bætast við síðar ({all})',
    description: 'Lýsing (valfrjálst)',
    createButton: 'Stofna rás',
    badUrl: 'Sláðu inn slóð móttakarans (config.url).',
    badEvents: 'Veldu minnst einn atburð (event_subscriptions).',
    badDescription: 'Lýsingin er ein lína, mest 500 stafir (description).',
    failing: 'sendingar mistókust ítrekað',
    requested: 'að beiðni',
    disabledNotice:
      'Rás {id} ({url}) var gerð óvirk {when} eftir að {failures} sendingar mistókust á {hours} klst. og engin tókst. Atburðir síðan þá voru ekki sendir; lagaðu móttakarann og virkjaðu rásina aftur.',
    enable: 'Virkja aftur',
    enabledOk: 'Rás {id} er virk á ný.',
    enabled: 'virk',
    disabled: 'óvirk',
  },
});

/** The event types a form asked for: `*` alone when it asked for all, else the known types ticked. */
export function chosenEvents(req: Request): string[] {
  const raw = (req.body as Record<string, unknown> | undefined)?.events;
  const ticked = (Array.isArray(raw) ? raw : [raw]).filter((v): v is string => typeof v === 'string');
  if (ticked.includes(ALL_EVENTS)) return [ALL_EVENTS];
  return EVENT_TYPES.filter((type) => ticked.includes(type));
}

/**
 * `/dashboard/webhooks`: the channels of the mode shown, a notice for each one the service disabled
 * because its deliveries kept failing (decision 0112), and a form that makes a channel through the
 * API's channel service (same address rules, decision 0111). A new channel opens on its own page,
 * where its secret is revealed on request (decision 0147).
 */
export function webhookListPages(ctx: WebContext): Router {
  const router = Router();
  const { channels, channelAutoDisable } = ctx.services;

  async function listPage(
    req: Request,
    res: Response,
    opts: { ok?: string; error?: string; status?: number; url?: string } = {},
  ) {
    const view = merchantView(req, res);
    const l = view.locale;
    const mode = view.scope.livemode ? 'live' : 'test';
    const all = (await channels.list(view.scope, { limit: 100 })).data;
    const notices: SafeHtml[] = all
      .filter((c) => c.disabled_reason === 'failing_deliveries')
      .map((c) =>
        notice(
          'warn',
          t(l, 'disabledNotice', {
            id: c.id,
            url: c.config.url,
            when: when(c.disabled_at, l),
            failures: channelAutoDisable.afterFailures,
            hours: channelAutoDisable.windowHours,
          }),
        ),
      );
    const rows = all.map(
      (c) =>
        html`<tr data-channel="${c.id}">
          <td><a href="/dashboard/webhooks/${c.id}">${c.id}</a></td>
          <td>${c.config.url}</td>
          <td>
            ${t(l, c.status)}${
              c.disabled_reason === 'failing_deliveries'
                ? ` (${t(l, 'failing')})`
                : c.disabled_reason === 'requested'
                  ? ` (${t(l, 'requested')})`
                  : ''
            }
          </td>
          <td>${c.event_subscriptions.join(', ')}</td>
          <td>${when(c.created_at, l)}</td>
          <td>
            ${
              c.status === 'disabled'
                ? html`<form class="inline" method="post" action="/dashboard/webhooks/${c.id}/enable">
                    ${view.csrf}
                    <button type="submit" aria-label="${t(l, 'enable')} ${c.id}">${t(l, 'enable')}</button>
                  </form>`
                : ''
            }
          </td>
        </tr>`,
    );
    const body = html`${notices}
      ${table(
        t(l, 'title'),
        [t(l, 'channel'), t(l, 'url'), t(l, 'status'), t(l, 'events'), t(l, 'created'), t(l, 'actions')],
        rows,
        t(l, 'none'),
      )}
      <section aria-labelledby="new-channel">
        <h2 id="new-channel">${t(l, 'create')}</h2>
        <form method="post" action="/dashboard/webhooks">
          ${view.csrf}
          <label for="channel-url">${t(l, 'endpoint')}</label>
          <input
            id="channel-url"
            name="url"
            type="url"
            inputmode="url"
            maxlength="2048"
            required
            value="${opts.url ?? ''}"
            aria-describedby="channel-url-hint"
          />
          <small id="channel-url-hint">${t(l, 'endpointHint', { mode })}</small>
          <fieldset>
            <legend>${t(l, 'subscribe')}</legend>
            <ul class="choices">
              <li>
                <input type="checkbox" id="event-all" name="events" value="${ALL_EVENTS}" />
                <label for="event-all" class="inline">${t(l, 'allEvents', { all: ALL_EVENTS })}</label>
              </li>
              ${EVENT_TYPES.map(
                (type) =>
                  html`<li>
                    <input type="checkbox" id="event-${type}" name="events" value="${type}" />
                    <label for="event-${type}" class="inline">${type}</label>
                  </li>`,
              )}
            </ul>
          </fieldset>
          <label for="channel-description">${t(l, 'description')}</label>
          <input id="channel-description" name="description" maxlength="500" />
          <p><button type="submit">${t(l, 'createButton')}</button></p>
        </form>
      </section>`;
    sendMerchantPage(res, view, body, {
      title: t(l, 'title'),
      status: opts.status ?? 200,
      ok: opts.ok,
      error: opts.error,
    });
  }

  router.get('/dashboard/webhooks', (req, res) => listPage(req, res));

  router.post('/dashboard/webhooks', async (req, res) => {
    const view = merchantView(req, res);
    const l = view.locale;
    const url = field(req, 'url').trim();
    const events = chosenEvents(req);
    const rawDescription = field(req, 'description');
    const description = rawDescription.trim() === '' ? null : line(rawDescription, 500);
    const bad = (key: 'badUrl' | 'badEvents' | 'badDescription') =>
      listPage(req, res, { error: t(l, key), status: 400, url: url.slice(0, 2048) });
    if (url === '' || url.length > 2048) return bad('badUrl');
    if (events.length === 0) return bad('badEvents');
    if (description === null && rawDescription.trim() !== '') return bad('badDescription');
    try {
      const channel = await channels.create(view.scope, {
        type: 'webhook',
        url,
        eventSubscriptions: events,
        description,
      });
      res.redirect(303, `/dashboard/webhooks/${channel.id}`);
    } catch (err) {
      const f = failure(err);
      await listPage(req, res, { error: f.message, status: f.status, url: url.slice(0, 2048) });
    }
  });

  router.post('/dashboard/webhooks/:id/enable', async (req, res) => {
    const view = merchantView(req, res);
    try {
      const channel = await channels.update(view.scope, String(req.params.id), { status: 'enabled' });
      await listPage(req, res, { ok: t(view.locale, 'enabledOk', { id: channel.id }) });
    } catch (err) {
      const f = failure(err);
      await listPage(req, res, { error: f.message, status: f.status });
    }
  });

  return router;
}
