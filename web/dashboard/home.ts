import { formatIsk } from '../../domain/isk';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Router } from 'express';
import { html } from '../../html/html';
import { defineMessages } from '../messages';
import type { WebContext } from './context';
import { merchantView, sendMerchantPage, table, when } from './frame';
import { statusBadge } from './status-badge';

const t = defineMessages({
  en: {
    title: 'Home',
    today: 'Today',
    month: 'This month',
    chartTitle: 'Money received, last 30 days, by payment kind',
    chartLabel:
      'Bar chart of money received per day by card and by krafa; the same figures follow as a table.',
    date: 'Date',
    card: 'Card',
    krafa: 'Krafa',
    recent: 'Recent payments',
    noPayments: 'No payments yet.',
    payment: 'Payment',
    amount: 'Amount',
    status: 'Status',
    created: 'Created',
    attention: 'Needing attention',
    failedDeliveries: '{count, plural, one {# webhook delivery} other {# webhook deliveries}} failed.',
    pastDue: '{count, plural, one {# subscription is} other {# subscriptions are}} past due.',
    unpaid: '{count, plural, one {# krafa is} other {# kröfur are}} unpaid past the due date.',
    allClear: 'Nothing needs attention.',
  },
  is: {
    title: 'Yfirlit',
    today: 'Í dag',
    month: 'Í þessum mánuði',
    chartTitle: 'Innborganir síðustu 30 daga eftir greiðsluleið',
    chartLabel: 'Súlurit innborgana á dag með korti og kröfu; sömu tölur fylgja í töflu.',
    date: 'Dagur',
    card: 'Kort',
    krafa: 'Krafa',
    recent: 'Nýjustu greiðslur',
    noPayments: 'Engar greiðslur enn.',
    payment: 'Greiðsla',
    amount: 'Upphæð',
    status: 'Staða',
    created: 'Stofnuð',
    attention: 'Þarfnast athygli',
    failedDeliveries: '{count, plural, one {# sending vefkróks} other {# sendingar vefkróka}} mistókst.',
    pastDue: '{count, plural, one {# áskrift er} other {# áskriftir eru}} í vanskilum.',
    unpaid: '{count, plural, one {# krafa er} other {# kröfur eru}} ógreiddar eftir eindaga.',
    allClear: 'Ekkert þarfnast athygli.',
  },
});

/** chart.js's browser build, from the package (no CDN); its `exports` map hides dist/, so from the main entry. */
const CHART_JS_PATH = join(dirname(require.resolve('chart.js')), 'chart.umd.min.js');
let chartJs: string | undefined;

/** Draws the home chart from the canvas's data attributes; the table below holds the same figures. */
const HOME_CHART_JS = `(function () {
  'use strict';
  var canvas = document.getElementById('volume-chart');
  if (!canvas || !window.Chart) return;
  var data = JSON.parse(canvas.getAttribute('data-series'));
  new window.Chart(canvas, {
    type: 'bar',
    data: {
      labels: data.labels,
      datasets: [
        { label: data.names[0], data: data.card, backgroundColor: '#1d4ed8' },
        { label: data.names[1], data: data.krafa, backgroundColor: '#15803d' }
      ]
    },
    options: {
      animation: false,
      responsive: true,
      locale: canvas.getAttribute('data-locale') || 'en-GB',
      scales: { x: { stacked: true }, y: { stacked: true, beginAtZero: true } }
    }
  });
  canvas.setAttribute('data-drawn', '1');
})();
`;

/** `/dashboard/home`: volumes, the 30-day chart by payment kind, recent payments, what needs attention. */
export function homePages(ctx: WebContext): Router {
  const router = Router();
  const { overview, data } = ctx.services;

  router.get('/dashboard/assets/chart.js', (_req, res) => {
    chartJs ??= readFileSync(CHART_JS_PATH, 'utf8');
    res.type('application/javascript').setHeader('Cache-Control', 'public, max-age=3600');
    res.send(chartJs);
  });
  router.get('/dashboard/assets/home-chart.js', (_req, res) => {
    res.type('application/javascript').setHeader('Cache-Control', 'public, max-age=300');
    res.send(HOME_CHART_JS);
  });

  router.get('/dashboard/home', async (req, res) => {
    const view = merchantView(req, res);
    const l = view.locale;
    const [figures, recent] = await Promise.all([
      overview.overview(view.scope),
      data.paymentIntents.list(view.scope, { limit: 10 }),
    ]);
    const a = figures.attention;
    const attention = [
      a.failedDeliveries > 0 &&
        html`<li>
          <a href="/dashboard/webhooks">${t(l, 'failedDeliveries', { count: a.failedDeliveries })}</a>
        </li>`,
      a.pastDueSubscriptions > 0 &&
        html`<li>
          <a href="/dashboard/subscriptions?status=past_due"
            >${t(l, 'pastDue', { count: a.pastDueSubscriptions })}</a
          >
        </li>`,
      a.unpaidClaims > 0 &&
        html`<li><a href="/dashboard/claims">${t(l, 'unpaid', { count: a.unpaidClaims })}</a></li>`,
    ].filter(Boolean);
    const series = JSON.stringify({
      labels: figures.days.map((d) => d.date.slice(5)),
      names: [t(l, 'card'), t(l, 'krafa')],
      card: figures.days.map((d) => d.card),
      krafa: figures.days.map((d) => d.krafa),
    });
    const body = html`<dl class="figures">
        <div class="card">
          <dt>${t(l, 'today')}</dt>
          <dd data-testid="volume-today">${formatIsk(figures.today, l)}</dd>
        </div>
        <div class="card">
          <dt>${t(l, 'month')}</dt>
          <dd data-testid="volume-month">${formatIsk(figures.month, l)}</dd>
        </div>
      </dl>
      <section aria-labelledby="attention">
        <h2 id="attention">${t(l, 'attention')}</h2>
        ${
          attention.length
            ? html`<ul>
                ${attention}
              </ul>`
            : html`<p>${t(l, 'allClear')}</p>`
        }
      </section>
      <section aria-labelledby="chart-title">
        <h2 id="chart-title">${t(l, 'chartTitle')}</h2>
        <div class="chart">
          <canvas
            id="volume-chart"
            role="img"
            aria-label="${t(l, 'chartLabel')}"
            data-locale="${l === 'is' ? 'is-IS' : 'en-GB'}"
            data-series="${series}"
            >${t(l, 'chartLabel')}</canvas
          >
        </div>
        <details>
          <summary>${t(l, 'chartTitle')} (${t(l, 'date')})</summary>
          ${table(
            t(l, 'chartTitle'),
            [t(l, 'date'), t(l, 'card'), t(l, 'krafa')],
            figures.days.map(
              (d) =>
                html`<tr data-date="${d.date}">
                  <td>${d.date}</td>
                  <td>${formatIsk(d.card, view.locale)}</td>
                  <td>${formatIsk(d.krafa, view.locale)}</td>
                </tr>`,
            ),
            '',
          )}
        </details>
      </section>
      <section aria-labelledby="recent">
        <h2 id="recent">${t(l, 'recent')}</h2>
        ${table(
          t(l, 'recent'),
          [t(l, 'payment'), t(l, 'amount'), t(l, 'status'), t(l, 'created')],
          recent.data.map(
            (p) =>
              html`<tr>
                <td><a href="/dashboard/payments/${p.id}">${p.description ?? p.id}</a></td>
                <td>${formatIsk(p.amount, view.locale)}</td>
                <td>${statusBadge(p.status, l)}</td>
                <td>${when(p.created_at, l)}</td>
              </tr>`,
          ),
          t(l, 'noPayments'),
        )}
      </section>`;
    sendMerchantPage(res, view, body, {
      title: t(l, 'title'),
      scripts: ['/dashboard/assets/chart.js', '/dashboard/assets/home-chart.js'],
    });
  });

  return router;
}
