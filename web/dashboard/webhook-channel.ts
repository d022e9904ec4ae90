import { Router, type Request, type Response } from 'express';
import { html } from '../../html/html';
import type { ChannelObject } from '../../services/channels/notification-channel-object';
import type { DeliveryObject } from '../../services/channels/webhook-delivery-object';
import { defineMessages } from '../messages';
import type { WebContext } from './context';
import { facts, failure, merchantView, nextPage, sendMerchantPage, table, when } from './frame';

const t = defineMessages({
  en: {
    title: 'Webhook channel {id}',
    back: 'All webhook channels',
    url: 'URL',
    mode: 'Mode',
    live: 'live',
    test: 'test',
    status: 'Status',
    enabled: 'enabled',
    disabled: 'disabled',
    events: 'Events',
    description: 'Description',
    created: 'Created',
    secret: 'Signing secret',
    secretHidden: 'Hidden. Receivers check X-Service-Signature with it.',
    reveal: 'Reveal signing secret',
    revealed:
      'Keep it on your server only. It signs every delivery: X-Service-Signature is sha256= and the HMAC-SHA256 of the body.',
    actions: 'Actions',
    sendTest: 'Send test event',
    testSent: 'A debug.check event is on its way to {url}.',
    disable: 'Disable channel',
    enable: 'Re-enable channel',
    disabledOk: 'The channel is disabled: events are not sent to it until it is enabled again.',
    deliveries: 'Deliveries, newest first',
    delivery: 'Delivery',
    event: 'Event',
    attempts: 'Attempts',
    next: 'Next attempt',
    none: 'No deliveries yet. Send a test event to see one.',
    noAttempts: 'Not attempted yet.',
    attempt:
      '#{n}: {outcome, select, succeeded {succeeded} failed {failed} other {in progress}}, {code}, {at}{ms}',
    noResponse: 'no response',
    older: 'Older deliveries',
    resend: 'Resend',
    resent: 'Delivery {id} is being sent again.',
  },
  is: {
    title: 'Vefkrókarás {id}',
    back: 'Allar vefkrókarásir',
    url: 'Slóð',
    mode: 'Hamur',
    live: 'raun',
    test: 'prufa',
    status: 'Staða',
    enabled: 'virk',
    disabled: 'óvirk',
    events: 'Atburðir',
    description: 'Lýsing',
    created: 'Stofnuð',
    secret: 'Undirritunarlykill',
    secretHidden: 'Falinn. Móttakarar sannreyna X-Service-Signature með honum.',
    reveal: 'Sýna undirritunarlykil',
    revealed:
      'Geymdu hann aðeins á þjóninum þínum. Hann undirritar hverja sendingu: X-Service-Signature er sha256= og HMAC-SHA256 meginmálsins.',
    actions: 'Aðgerðir',
    sendTest: 'Senda prufuatburð',
    testSent: 'debug.check-atburður er á leið til {url}.',
    disable: 'Gera rás óvirka',
    enable: 'Virkja rás aftur',
    disabledOk: 'Rásin er óvirk: atburðir eru ekki sendir fyrr en hún er virkjuð aftur.',
    deliveries: 'Sendingar, nýjustu fyrst',
    delivery: 'Sending',
    event: 'Atburður',
    attempts: 'Tilraunir',
    next: 'Næsta tilraun',
    none: 'Engar sendingar enn. Sendu prufuatburð til að sjá eina.',
    noAttempts: 'Ekki reynt enn.',
    attempt: '#{n}: {outcome, select, succeeded {tókst} failed {mistókst} other {í gangi}}, {code}, {at}{ms}',
    noResponse: 'ekkert svar',
    older: 'Eldri sendingar',
    resend: 'Senda aftur',
    resent: 'Sending {id} er send aftur.',
  },
});

type Msg = Parameters<typeof t>[1];

/** How many of a channel's deliveries its page shows, each with its attempts. */
const SHOWN = 25;

/**
 * `/dashboard/webhooks/:id`: one channel of the mode shown, its newest deliveries with every attempt
 * (outcome, response code, time), and its actions: reveal the signing secret (a POST, so the secret
 * is never in a page a GET returns; decision 0147), send a `debug.check`, resend a finished delivery,
 * disable (re-enabling is the list's action, decision 0112). Each calls the service the API's endpoint calls.
 */
export function webhookChannelPages(ctx: WebContext): Router {
  const router = Router();
  const { channels, data } = ctx.services;

  async function channelPage(
    req: Request,
    res: Response,
    opts: { ok?: string; error?: string; status?: number; secret?: boolean } = {},
  ) {
    const view = merchantView(req, res);
    const l = view.locale;
    let channel: ChannelObject;
    try {
      channel = await channels.retrieve(view.scope, String(req.params.id));
    } catch (err) {
      const f = failure(err);
      sendMerchantPage(res, view, html`<p><a href="/dashboard/webhooks">${t(l, 'back')}</a></p>`, {
        title: t(l, 'title', { id: String(req.params.id).slice(0, 64) }),
        status: f.status,
        error: f.message,
      });
      return;
    }
    // `?after=` pages to older deliveries; a cursor that is not one of this channel's is the API's 4xx.
    const after =
      typeof req.query.after === 'string' && /^[a-z]{2,8}_[0-9A-Za-z]{1,64}$/.test(req.query.after)
        ? req.query.after
        : undefined;
    let page: { data: DeliveryObject[]; hasMore: boolean };
    try {
      page = await data.deliveries.list(view.scope, channel.id, {
        limit: SHOWN,
        ...(after !== undefined && { startingAfter: after }),
      });
    } catch (err) {
      const f = failure(err);
      page = { data: [], hasMore: false };
      opts = { ...opts, error: f.message, status: f.status };
    }
    const last = page.data[page.data.length - 1];
    const [detailed, events] = await Promise.all([
      Promise.all(page.data.map((d) => data.deliveries.retrieve(view.scope, channel.id, d.id))),
      Promise.all(page.data.map((d) => data.events.retrieve(view.scope, d.event).catch(() => null))),
    ]);
    const attemptsOf = (d: DeliveryObject) =>
      d.attempts && d.attempts.length > 0
        ? html`<ol class="attempts">
            ${d.attempts.map(
              (a) =>
                html`<li data-outcome="${a.outcome}">
                  ${t(l, 'attempt', {
                    n: a.attempt,
                    outcome: a.outcome,
                    code: a.response_status === null ? t(l, 'noResponse') : `HTTP ${a.response_status}`,
                    at: when(a.started_at, l),
                    ms: a.latency_ms === null ? '' : `, ${a.latency_ms} ms`,
                  })}${a.error ? html`<br /><small>${a.error}</small>` : ''}
                </li>`,
            )}
          </ol>`
        : t(l, 'noAttempts');
    const rows = detailed.map(
      (d, i) =>
        html`<tr data-delivery="${d.id}" data-status="${d.status}">
          <td><code>${d.id}</code><br />${d.status}</td>
          <td>
            <a href="/dashboard/events/${d.event}">${events[i]?.type ?? d.event}</a><br /><small
              >${d.event}</small
            >
          </td>
          <td>${attemptsOf(d)}</td>
          <td>${d.status === 'pending' ? when(d.next_attempt_at, l) : '—'}</td>
          <td>
            ${
              d.status !== 'pending' && channel.status === 'enabled'
                ? html`<form
                    class="inline"
                    method="post"
                    action="/dashboard/webhooks/${channel.id}/deliveries/${d.id}/resend"
                  >
                    ${view.csrf}
                    <button type="submit" class="secondary" aria-label="${t(l, 'resend')} ${d.id}">
                      ${t(l, 'resend')}
                    </button>
                  </form>`
                : ''
            }
          </td>
        </tr>`,
    );
    const action = (path: string, key: Msg, kind = '') =>
      html`<form class="inline" method="post" action="/dashboard/webhooks/${channel.id}/${path}">
        ${view.csrf}
        <button type="submit" class="${kind}">${t(l, key)}</button>
      </form>`;
    const body = html`<p><a href="/dashboard/webhooks">${t(l, 'back')}</a></p>
      ${facts([
        [t(l, 'url'), channel.config.url],
        [t(l, 'mode'), t(l, channel.livemode ? 'live' : 'test')],
        [t(l, 'status'), html`<span data-testid="channel-status">${t(l, channel.status)}</span>`],
        [t(l, 'events'), channel.event_subscriptions.join(', ')],
        [t(l, 'description'), channel.description ?? '—'],
        [t(l, 'created'), when(channel.created_at, l)],
      ])}
      <section aria-labelledby="secret-title">
        <h2 id="secret-title">${t(l, 'secret')}</h2>
        ${
          opts.secret
            ? html`<p>
                  <code class="secret" data-testid="signing-secret" tabindex="0"
                    >${channel.config.secret}</code
                  >
                </p>
                <p>${t(l, 'revealed')}</p>`
            : html`<p>${t(l, 'secretHidden')}</p>
                ${action('secret', 'reveal', 'secondary')}`
        }
      </section>
      <section aria-labelledby="actions-title">
        <h2 id="actions-title">${t(l, 'actions')}</h2>
        ${
          channel.status === 'enabled'
            ? html`${action('test', 'sendTest')} ${action('disable', 'disable', 'secondary')}`
            : action('enable', 'enable')
        }
      </section>
      <section aria-labelledby="deliveries-title">
        <h2 id="deliveries-title">${t(l, 'deliveries')}</h2>
        ${table(
          t(l, 'deliveries'),
          [t(l, 'delivery'), t(l, 'event'), t(l, 'attempts'), t(l, 'next'), ''],
          rows,
          t(l, 'none'),
        )}
        ${nextPage(
          page.hasMore && last ? `/dashboard/webhooks/${channel.id}?after=${last.id}` : null,
          t(l, 'older'),
        )}
      </section>`;
    sendMerchantPage(res, view, body, {
      title: t(l, 'title', { id: channel.id }),
      status: opts.status ?? 200,
      ok: opts.ok,
      error: opts.error,
    });
  }

  /** Runs a channel action, then shows the channel with its outcome (or the service's refusal). */
  const act =
    (run: (req: Request, res: Response) => Promise<string>, extra: { secret?: boolean } = {}) =>
    async (req: Request, res: Response) => {
      try {
        const ok = await run(req, res);
        await channelPage(req, res, { ok, ...extra });
      } catch (err) {
        const f = failure(err);
        await channelPage(req, res, { error: f.message, status: f.status });
      }
    };
  const scopeOf = (req: Request, res: Response) => merchantView(req, res).scope;
  const localeOf = (req: Request, res: Response) => merchantView(req, res).locale;
  const idOf = (req: Request) => String(req.params.id);

  router.get('/dashboard/webhooks/:id', (req, res) => channelPage(req, res));

  router.post(
    '/dashboard/webhooks/:id/secret',
    act(() => Promise.resolve(''), { secret: true }),
  );

  router.post(
    '/dashboard/webhooks/:id/test',
    act(async (req, res) => {
      const channel = await channels.retrieve(scopeOf(req, res), idOf(req));
      await channels.sendTestEvents(scopeOf(req, res), channel.id);
      return t(localeOf(req, res), 'testSent', { url: channel.config.url });
    }),
  );

  router.post(
    '/dashboard/webhooks/:id/disable',
    act(async (req, res) => {
      await channels.update(scopeOf(req, res), idOf(req), { status: 'disabled' });
      return t(localeOf(req, res), 'disabledOk');
    }),
  );

  router.post(
    '/dashboard/webhooks/:id/deliveries/:delivery/resend',
    act(async (req, res) => {
      const d = await data.deliveries.resend(scopeOf(req, res), idOf(req), String(req.params.delivery));
      return t(localeOf(req, res), 'resent', { id: d.id });
    }),
  );

  return router;
}
