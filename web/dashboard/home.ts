import { formatIsk } from '../../domain/isk';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Router } from 'express';
import { html, type SafeHtml } from '../../html/html';
import { isPeriod, PERIODS, type Period } from '../../domain/dashboard-periods';
import type { Locale } from '../../domain/locale';
import type { Churn, Compared, HomeFigures } from '../../services/dashboard/home-figures';
import { defineMessages } from '../messages';
import type { WebContext } from './context';
import { merchantView, sendMerchantPage, table, when } from './frame';
import { statusBadge } from './status-badge';

const t = defineMessages({
  en: {
    title: 'Home',
    periods: 'Period',
    period_today: 'Today',
    period_7d: 'Last 7 days',
    period_30d: 'Last 30 days',
    period_month: 'This month',
    against: 'Compared with {from} – {to}',
    gross: 'Gross volume',
    net: 'Net after fees',
    fees: 'Fees',
    refunds: 'Refunds',
    refundCount: '{count, plural, one {# refund} other {# refunds}}',
    disputes: 'Disputes',
    disputeCount: '{count, plural, one {# dispute} other {# disputes}}',
    newCustomers: 'New customers',
    mrr: 'MRR',
    active: 'Active subscriptions',
    churn: 'Churn',
    churnDetail: '{ended} of {start} ended',
    claimsOutstanding: 'Kröfur outstanding',
    claimsOverdue: 'Kröfur overdue (past eindagi)',
    claimCount: '{count, plural, one {# krafa} other {# kröfur}}',
    nextPayout: 'Next payout',
    noPayout: 'None scheduled',
    before: 'before: {value}',
    up: 'up {pct}',
    down: 'down {pct}',
    same: 'unchanged',
    chartTitle: 'Money received by day and payment kind',
    chartLabel:
      'Bar chart of money received per day by card and by krafa; the same figures follow as a table.',
    mrrTitle: 'MRR over twelve months',
    mrrLabel: 'Line chart of MRR at the start of each month; the same figures follow as a table.',
    payoutsTitle: 'Payouts',
    payoutsLabel: 'Bar chart of the latest payouts; the same figures follow as a table.',
    noPayouts: 'No payouts yet.',
    figuresTable: 'Figures',
    date: 'Date',
    month: 'Month',
    card: 'Card',
    krafa: 'Krafa',
    amount: 'Amount',
    status: 'Status',
    recent: 'Recent payments',
    noPayments: 'No payments yet.',
    payment: 'Payment',
    created: 'Created',
    attention: 'Needing attention',
    failedDeliveries: '{count, plural, one {# webhook delivery} other {# webhook deliveries}} failed.',
    pastDue: '{count, plural, one {# subscription is} other {# subscriptions are}} past due.',
    unpaid: '{count, plural, one {# krafa is} other {# kröfur are}} unpaid past the due date.',
    allClear: 'Nothing needs attention.',
  },
  is: {
    title: 'Yfirlit',
    periods: 'Tímabil',
    period_today: 'Í dag',
    period_7d: 'Síðustu 7 dagar',
    period_30d: 'Síðustu 30 dagar',
    period_month: 'Í þessum mánuði',
    against: 'Borið saman við {from} – {to}',
    gross: 'Heildarvelta',
    net: 'Nettó eftir þóknun',
    fees: 'Þóknun',
    refunds: 'Endurgreiðslur',
    refundCount: '{count, plural, one {# endurgreiðsla} other {# endurgreiðslur}}',
    disputes: 'Ágreiningsmál',
    disputeCount: '{count, plural, one {# mál} other {# mál}}',
    newCustomers: 'Nýir viðskiptavinir',
    mrr: 'Mánaðarlegar tekjur (MRR)',
    active: 'Virkar áskriftir',
    churn: 'Brottfall',
    churnDetail: '{ended} af {start} lokið',
    claimsOutstanding: 'Útistandandi kröfur',
    claimsOverdue: 'Kröfur fram yfir eindaga',
    claimCount: '{count, plural, one {# krafa} other {# kröfur}}',
    nextPayout: 'Næsta útborgun',
    noPayout: 'Engin á dagskrá',
    before: 'áður: {value}',
    up: 'upp um {pct}',
    down: 'niður um {pct}',
    same: 'óbreytt',
    chartTitle: 'Innborganir á dag eftir greiðsluleið',
    chartLabel: 'Súlurit innborgana á dag með korti og kröfu; sömu tölur fylgja í töflu.',
    mrrTitle: 'MRR síðustu tólf mánuði',
    mrrLabel: 'Línurit mánaðarlegra tekna í upphafi hvers mánaðar; sömu tölur fylgja í töflu.',
    payoutsTitle: 'Útborganir',
    payoutsLabel: 'Súlurit nýjustu útborgana; sömu tölur fylgja í töflu.',
    noPayouts: 'Engar útborganir enn.',
    figuresTable: 'Tölur',
    date: 'Dagur',
    month: 'Mánuður',
    card: 'Kort',
    krafa: 'Krafa',
    amount: 'Upphæð',
    status: 'Staða',
    recent: 'Nýjustu greiðslur',
    noPayments: 'Engar greiðslur enn.',
    payment: 'Greiðsla',
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

/** Draws the home charts from their canvases' data attributes; tables below hold the same figures. */
const HOME_CHART_JS = `(function () {
  'use strict';
  if (!window.Chart) return;
  function draw(id, build) {
    var canvas = document.getElementById(id);
    if (!canvas) return;
    var data = JSON.parse(canvas.getAttribute('data-series'));
    var config = build(data);
    config.options = Object.assign({ animation: false, responsive: true,
      locale: canvas.getAttribute('data-locale') || 'en-GB' }, config.options || {});
    new window.Chart(canvas, config);
    canvas.setAttribute('data-drawn', '1');
  }
  draw('volume-chart', function (data) {
    return { type: 'bar', data: { labels: data.labels, datasets: [
        { label: data.names[0], data: data.card, backgroundColor: '#1d4ed8' },
        { label: data.names[1], data: data.krafa, backgroundColor: '#15803d' }
      ] },
      options: { scales: { x: { stacked: true }, y: { stacked: true, beginAtZero: true } } } };
  });
  draw('mrr-chart', function (data) {
    return { type: 'line', data: { labels: data.labels, datasets: [
        { label: data.name, data: data.values, borderColor: '#7c3aed', backgroundColor: '#7c3aed' }
      ] }, options: { scales: { y: { beginAtZero: true } } } };
  });
  draw('payouts-chart', function (data) {
    return { type: 'bar', data: { labels: data.labels, datasets: [
        { label: data.name, data: data.values, backgroundColor: '#0f766e' }
      ] }, options: { scales: { y: { beginAtZero: true } } } };
  });
})();
`;

const DEFAULT_PERIOD: Period = '30d';

/** A change in per mille as the page's language writes a percentage. */
function changeText(l: Locale, perMille: number | null): string {
  if (perMille === null) return '';
  if (perMille === 0) return t(l, 'same');
  const pct = new Intl.NumberFormat(l === 'is' ? 'is-IS' : 'en-GB', {
    style: 'percent',
    maximumFractionDigits: 1,
  }).format(Math.abs(perMille) / 1000);
  return t(l, perMille > 0 ? 'up' : 'down', { pct });
}

function permille(l: Locale, value: number | null): string {
  if (value === null) return '—';
  return new Intl.NumberFormat(l === 'is' ? 'is-IS' : 'en-GB', {
    style: 'percent',
    maximumFractionDigits: 1,
  }).format(value / 1000);
}

/** One figure's card: the value now, the previous period's and the change. */
function figure(
  l: Locale,
  id: string,
  label: string,
  c: Compared,
  show: (n: number) => string,
  extra?: string,
): SafeHtml {
  return html`<div class="card" data-figure="${id}">
    <dt>${label}</dt>
    <dd data-testid="${id}" data-value="${c.now}" data-before="${c.before}">${show(c.now)}</dd>
    <dd class="hint">
      ${extra ? html`${extra}<br />` : ''}${t(l, 'before', { value: show(c.before) })}
      ${changeText(l, c.changePerMille)}
    </dd>
  </div>`;
}

function churnCard(l: Locale, churn: { now: Churn; before: Churn }): SafeHtml {
  const c = churn.now;
  return html`<div class="card" data-figure="churn">
    <dt>${t(l, 'churn')}</dt>
    <dd data-testid="churn" data-ended="${c.ended}" data-start="${c.atStart}">${permille(l, c.perMille)}</dd>
    <dd class="hint">
      ${t(l, 'churnDetail', { ended: c.ended, start: c.atStart })}<br />${t(l, 'before', {
        value: permille(l, churn.before.perMille),
      })}
    </dd>
  </div>`;
}

function figuresList(l: Locale, f: HomeFigures): SafeHtml {
  const isk = (n: number) => formatIsk(n, l);
  const count = (n: number) => String(n);
  const cl = f.claims;
  return html`<dl class="figures">
    ${figure(l, 'gross', t(l, 'gross'), f.gross, isk)}
    ${figure(l, 'net', t(l, 'net'), f.net, isk, `${t(l, 'fees')}: ${isk(f.fees.now)}`)}
    ${figure(l, 'refunds', t(l, 'refunds'), f.refunds, isk, t(l, 'refundCount', { count: f.refundCount.now }))}
    ${figure(
      l,
      'disputes',
      t(l, 'disputes'),
      f.disputes,
      isk,
      t(l, 'disputeCount', { count: f.disputeCount.now }),
    )}
    ${figure(l, 'new-customers', t(l, 'newCustomers'), f.newCustomers, count)}
    ${figure(l, 'mrr', t(l, 'mrr'), f.mrr, isk)}
    ${figure(l, 'active-subscriptions', t(l, 'active'), f.activeSubscriptions, count)}
    ${churnCard(l, f.churn)}
    <div class="card" data-figure="claims-outstanding">
      <dt>${t(l, 'claimsOutstanding')}</dt>
      <dd data-testid="claims-outstanding" data-count="${cl.count}" data-value="${cl.amount}">
        ${isk(cl.amount)}
      </dd>
      <dd class="hint">${t(l, 'claimCount', { count: cl.count })}</dd>
    </div>
    <div class="card" data-figure="claims-overdue">
      <dt>${t(l, 'claimsOverdue')}</dt>
      <dd data-testid="claims-overdue" data-count="${cl.overdueCount}" data-value="${cl.overdueAmount}">
        ${isk(cl.overdueAmount)}
      </dd>
      <dd class="hint">${t(l, 'claimCount', { count: cl.overdueCount })}</dd>
    </div>
    <div class="card" data-figure="next-payout">
      <dt>${t(l, 'nextPayout')}</dt>
      ${
        f.nextPayout
          ? html`<dd data-testid="next-payout" data-value="${f.nextPayout.net}">${isk(f.nextPayout.net)}</dd>
              <dd class="hint">${f.nextPayout.settlementDate} ${statusBadge(f.nextPayout.status, l)}</dd>`
          : html`<dd data-testid="next-payout">${t(l, 'noPayout')}</dd>`
      }
    </div>
  </dl>`;
}

/** A chart's canvas with its label, and the same figures in a table for screen readers and no script. */
function chart(
  l: Locale,
  id: string,
  title: string,
  label: string,
  series: unknown,
  headers: string[],
  rows: SafeHtml[],
  empty: string,
): SafeHtml {
  return html`<section aria-labelledby="${id}-title">
    <h2 id="${id}-title">${title}</h2>
    ${
      rows.length
        ? html`<div class="chart">
            <canvas
              id="${id}"
              role="img"
              aria-label="${label}"
              data-locale="${l === 'is' ? 'is-IS' : 'en-GB'}"
              data-series="${JSON.stringify(series)}"
              >${label}</canvas
            >
          </div>`
        : ''
    }
    <details>
      <summary>${title} (${t(l, 'figuresTable')})</summary>
      ${table(title, headers, rows, empty)}
    </details>
  </section>`;
}

/** `/dashboard/home`: a period's figures against the previous period's, three charts, what needs attention. */
export function homePages(ctx: WebContext): Router {
  const router = Router();
  const { overview, homeFigures, data } = ctx.services;

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
    const period = isPeriod(req.query.period) ? req.query.period : DEFAULT_PERIOD;
    const [{ attention: a }, f, recent] = await Promise.all([
      overview.overview(view.scope),
      homeFigures.figures(view.scope, period),
      data.paymentIntents.list(view.scope, { limit: 10 }),
    ]);
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
    const isk = (n: number) => formatIsk(n, l);
    const lastDay = (to: Date) => new Date(to.getTime() - 86_400_000).toISOString().slice(0, 10);
    const body = html`<nav class="finance-bar" aria-label="${t(l, 'periods')}">
        <ul>
          ${PERIODS.map(
            (p) =>
              html`<li>
                <a href="/dashboard/home?period=${p}" ${p === period ? html`aria-current="page"` : ''}
                  >${t(l, `period_${p}`)}</a
                >
              </li>`,
          )}
        </ul>
        <p class="hint" data-testid="compared-with">
          ${t(l, 'against', {
            from: f.previous.from.toISOString().slice(0, 10),
            to: lastDay(f.previous.to),
          })}
        </p>
      </nav>
      ${figuresList(l, f)}
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
      ${chart(
        l,
        'volume-chart',
        t(l, 'chartTitle'),
        t(l, 'chartLabel'),
        {
          labels: f.days.map((d) => d.date.slice(5)),
          names: [t(l, 'card'), t(l, 'krafa')],
          card: f.days.map((d) => d.card),
          krafa: f.days.map((d) => d.krafa),
        },
        [t(l, 'date'), t(l, 'card'), t(l, 'krafa')],
        f.days.map(
          (d) =>
            html`<tr data-date="${d.date}">
              <td>${d.date}</td>
              <td>${isk(d.card)}</td>
              <td>${isk(d.krafa)}</td>
            </tr>`,
        ),
        '',
      )}
      ${chart(
        l,
        'mrr-chart',
        t(l, 'mrrTitle'),
        t(l, 'mrrLabel'),
        {
          labels: f.mrrMonths.map((m) => m.at.slice(0, 7)),
          name: t(l, 'mrr'),
          values: f.mrrMonths.map((m) => m.mrr),
        },
        [t(l, 'month'), t(l, 'mrr')],
        f.mrrMonths.map(
          (m) =>
            html`<tr data-month="${m.at}">
              <td>${m.at}</td>
              <td>${isk(m.mrr)}</td>
            </tr>`,
        ),
        '',
      )}
      ${chart(
        l,
        'payouts-chart',
        t(l, 'payoutsTitle'),
        t(l, 'payoutsLabel'),
        {
          labels: f.payouts.map((p) => p.settlementDate),
          name: t(l, 'payoutsTitle'),
          values: f.payouts.map((p) => p.amount),
        },
        [t(l, 'date'), t(l, 'amount'), t(l, 'status')],
        f.payouts.map(
          (p) =>
            html`<tr data-payout="${p.id}">
              <td>${p.settlementDate}</td>
              <td>${isk(p.amount)}</td>
              <td>${statusBadge(p.status, l)}</td>
            </tr>`,
        ),
        t(l, 'noPayouts'),
      )}
      <section aria-labelledby="recent">
        <h2 id="recent">${t(l, 'recent')}</h2>
        ${table(
          t(l, 'recent'),
          [t(l, 'payment'), t(l, 'amount'), t(l, 'status'), t(l, 'created')],
          recent.data.map(
            (p) =>
              html`<tr>
                <td><a href="/dashboard/payments/${p.id}">${p.description ?? p.id}</a></td>
                <td>${isk(p.amount)}</td>
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
