import { Router, type Request, type Response } from 'express';
import { html, type SafeHtml } from '../../html/html';
import type { PosReportTotals } from '../../domain/pos';
import {
  csrfInput,
  failure,
  isk,
  kronur,
  sendTillPage,
  tillView,
  type PosContext,
  type TillView,
} from './frame';
import { requireStaff } from './device-pages';
import { t } from './messages';

const minute = (unix: number | null) =>
  unix === null ? '—' : new Date(unix * 1000).toISOString().slice(0, 16).replace('T', ' ');

/** A table of figures, each row `data-figure`-named so a reader (or a test) finds it by meaning. */
function figures(caption: string, rows: [string, string, string][]): SafeHtml {
  return html`<table>
    <caption>
      ${caption}
    </caption>
    <tbody>
      ${rows.map(
        ([key, label, value]) =>
          html`<tr data-figure="${key}">
            <th scope="row">${label}</th>
            <td class="n">${value}</td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}

/** The X- and Z-report's figures (decision 0128) as the till shows and prints them. */
function reportBody(
  view: TillView,
  r: PosReportTotals & { grand_total: number; period_start: number | null },
  end: number | null,
): SafeHtml {
  const l = view.locale;
  const money = (n: number | null) => (n === null ? '—' : isk(view, n));
  return html`${figures(t(l, 'period'), [
      ['period', t(l, 'period'), `${minute(r.period_start)} – ${minute(end)}`],
      ['sales_count', t(l, 'salesCount'), String(r.sales_count)],
      ['gross_sales', t(l, 'grossSales'), money(r.gross_sales)],
      ['discounts', t(l, 'discounts'), money(r.discounts)],
      ['refunds_count', t(l, 'refundsCount'), String(r.refunds.count)],
      ['refunds', t(l, 'refunds'), money(r.refunds.amount)],
      ['refunds_cash', `${t(l, 'refunds')}: ${t(l, 'cash')}`, money(r.refunds.cash)],
      ['refunds_card', `${t(l, 'refunds')}: ${t(l, 'card')}`, money(r.refunds.card)],
      ['net_sales', t(l, 'netSales'), money(r.net_sales)],
      ['grand_total', t(l, 'grandTotal'), money(r.grand_total)],
    ])}
    ${figures(t(l, 'perPayment'), [
      ['payments_cash', t(l, 'cash'), money(r.payments.cash)],
      ['payments_card', t(l, 'card'), money(r.payments.card)],
    ])}
    <table>
      <caption>
        ${t(l, 'perVat')}
      </caption>
      <thead>
        <tr>
          <th scope="col">${t(l, 'rate')}</th>
          <th scope="col" class="n">${t(l, 'gross')}</th>
          <th scope="col" class="n">${t(l, 'vat')}</th>
          <th scope="col" class="n">${t(l, 'net')}</th>
        </tr>
      </thead>
      <tbody>
        ${r.vat.map(
          (v) =>
            html`<tr data-vat-rate="${v.rate}" data-vat-category="${v.category}">
              <th scope="row">${t(l, 'vatRateOf', { rate: v.rate, category: v.category })}</th>
              <td class="n" data-col="gross">${money(v.gross)}</td>
              <td class="n" data-col="vat">${money(v.vat)}</td>
              <td class="n" data-col="net">${money(v.net)}</td>
            </tr>`,
        )}
      </tbody>
    </table>
    <table>
      <caption>
        ${t(l, 'perStaff')}
      </caption>
      <thead>
        <tr>
          <th scope="col">${t(l, 'staff')}</th>
          <th scope="col" class="n">${t(l, 'salesCount')}</th>
          <th scope="col" class="n">${t(l, 'grossSales')}</th>
          <th scope="col" class="n">${t(l, 'refunds')}</th>
        </tr>
      </thead>
      <tbody>
        ${r.staff.map(
          (s) =>
            html`<tr>
              <th scope="row">${s.name}</th>
              <td class="n">${s.sales_count}</td>
              <td class="n">${money(s.sales)}</td>
              <td class="n">${money(s.refunds)}</td>
            </tr>`,
        )}
      </tbody>
    </table>
    ${figures(t(l, 'drawer'), [
      ['no_sale_openings', t(l, 'noSaleOpenings'), String(r.drawer.no_sale_openings)],
      ['paid_in', t(l, 'paidIn'), money(r.drawer.paid_in)],
      ['paid_out', t(l, 'paidOut'), money(r.drawer.paid_out)],
      ['opening_float', t(l, 'openingFloatShort'), money(r.cash.opening_float)],
      ['expected_cash', t(l, 'expected'), money(r.cash.expected)],
      ['counted_cash', t(l, 'counted'), money(r.cash.counted)],
      ['difference', t(l, 'difference'), money(r.cash.difference)],
    ])}`;
}

/**
 * The drawer shift (open with a float, close with the counted cash) and the reports: the running
 * X-report, the Z-report that closes the register's day, and the Z-reports made before.
 */
export function reportPages(ctx: PosContext): Router {
  const router = Router();
  router.use(['/pos/shift', '/pos/reports', '/pos/z-reports'], requireStaff);

  async function shiftPage(
    req: Request,
    res: Response,
    opts: { status?: number; error?: string; ok?: string } = {},
  ) {
    const view = tillView(res);
    const l = view.locale;
    const shift = await ctx.pos.till
      .currentShift(view.scope, view.actor, view.registerId)
      .catch((err: unknown) => {
        failure(err);
        return null;
      });
    const body = shift
      ? html`<p>
            ${t(l, 'shiftOpen', { time: minute(shift.opened_at), float: isk(view, shift.opening_float) })}
          </p>
          <form method="post" action="/pos/shift/close" class="tillform">
            ${csrfInput(view)}
            <label for="counted_cash">${t(l, 'countedCash')}</label>
            <input id="counted_cash" name="counted_cash" inputmode="numeric" autocomplete="off" required />
            <p><button type="submit">${t(l, 'closeShift')}</button></p>
          </form>`
      : html`<p>${t(l, 'noShift')}</p>
          <form method="post" action="/pos/shift/open" class="tillform">
            ${csrfInput(view)}
            <label for="opening_float">${t(l, 'openingFloat')}</label>
            <input id="opening_float" name="opening_float" inputmode="numeric" autocomplete="off" required />
            <p><button type="submit">${t(l, 'openShift')}</button></p>
          </form>`;
    sendTillPage(req, res, body, { title: t(l, 'shiftTitle'), ...opts });
  }
  router.get('/pos/shift', (req, res) => shiftPage(req, res));
  router.post('/pos/shift/open', async (req, res) => {
    const view = tillView(res);
    const amount = kronur((req.body as Record<string, unknown>).opening_float);
    if (amount === null) return shiftPage(req, res, { status: 400, error: t(view.locale, 'amountInvalid') });
    try {
      await ctx.pos.till.openShift(view.scope, view.actor, view.registerId, { opening_float: amount });
      res.redirect(303, '/pos/sell');
    } catch (err) {
      const f = failure(err);
      await shiftPage(req, res, { status: f.status, error: f.message });
    }
  });
  router.post('/pos/shift/close', async (req, res) => {
    const view = tillView(res);
    const l = view.locale;
    const amount = kronur((req.body as Record<string, unknown>).counted_cash);
    if (amount === null) return shiftPage(req, res, { status: 400, error: t(l, 'amountInvalid') });
    try {
      const s = await ctx.pos.till.closeShift(view.scope, view.actor, view.registerId, {
        counted_cash: amount,
      });
      await shiftPage(req, res, {
        ok: t(l, 'shiftClosed', {
          expected: isk(view, s.expected_cash ?? 0),
          counted: isk(view, s.counted_cash ?? 0),
          difference: isk(view, s.difference ?? 0),
        }),
      });
    } catch (err) {
      const f = failure(err);
      await shiftPage(req, res, { status: f.status, error: f.message });
    }
  });

  async function reportsPage(req: Request, res: Response, opts: { status?: number; error?: string } = {}) {
    const view = tillView(res);
    const l = view.locale;
    const x = await ctx.pos.till.xReport(view.scope, view.actor, view.registerId);
    const zs = await ctx.pos.till.listZReports(view.scope, view.actor, { limit: 20 });
    sendTillPage(
      req,
      res,
      html`<form method="post" action="/pos/z-reports" class="tillform">
          ${csrfInput(view)}
          <p>${t(l, 'zHelp')}</p>
          ${
            view.staff?.role === 'manager'
              ? html`<p><button type="submit">${t(l, 'makeZ')}</button></p>`
              : html`<p>${t(l, 'managerOnly')}</p>`
          }
        </form>
        <section aria-labelledby="z-list">
          <h2 id="z-list">${t(l, 'zList')}</h2>
          ${
            zs.data.length === 0
              ? html`<p>${t(l, 'noZ')}</p>`
              : html`<ul>
                  ${zs.data.map(
                    (z) =>
                      html`<li>
                        <a href="/pos/z-reports/${z.id}">${t(l, 'zTitle', { number: z.number })}</a>
                        (${minute(z.period_end)})
                      </li>`,
                  )}
                </ul>`
          }
        </section>
        <section aria-labelledby="x-h">
          <h2 id="x-h">${t(l, 'xReport')}</h2>
          ${reportBody(view, x, x.generated_at)}
        </section>`,
      { title: t(l, 'reportsTitle'), ...opts },
    );
  }
  router.get('/pos/reports', (req, res) => reportsPage(req, res));
  router.post('/pos/z-reports', async (req, res) => {
    const view = tillView(res);
    try {
      const z = await ctx.pos.till.makeZReport(view.scope, view.actor, view.registerId, {});
      res.redirect(303, `/pos/z-reports/${z.id}`);
    } catch (err) {
      const f = failure(err);
      await reportsPage(req, res, { status: f.status, error: f.message });
    }
  });
  router.get('/pos/z-reports/:id', async (req, res) => {
    const view = tillView(res);
    const l = view.locale;
    const z = await ctx.pos.till.retrieveZReport(view.scope, view.actor, req.params.id);
    sendTillPage(
      req,
      res,
      html`<p data-testid="z-number">${t(l, 'zTitle', { number: z.number })}</p>
        ${reportBody(view, z, z.period_end)}`,
      { title: t(l, 'zTitle', { number: z.number }) },
    );
  });
  return router;
}
