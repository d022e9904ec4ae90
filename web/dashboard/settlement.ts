import { Router } from 'express';
import { formatIsk } from '../../domain/isk';
import { html } from '../../html/html';
import { defineMessages } from '../messages';
import type { WebContext } from './context';
import { sendDownload } from './download';
import { facts, failure, merchantView, nextPage, sendMerchantPage, table, when } from './frame';
import { statusBadge } from './status-badge';

const LINES_SHOWN = 500;

const t = defineMessages({
  en: {
    title: 'Settlement',
    intro: 'What each settlement run paid out to your bank account, with the payments and fees it settled.',
    run: 'Run',
    date: 'Settlement date',
    status: 'Status',
    gross: 'Gross',
    fee: 'Fees',
    net: 'Net',
    payout: 'Payout',
    lines: 'Lines',
    none: 'No settlement runs yet.',
    older: 'Older runs',
    detail: 'Settlement run {id}',
    account: 'To account',
    paidAt: 'Paid',
    reference: 'Reference',
    noPayout: 'No payout yet.',
    csv: 'Download the lines as CSV',
    kind: 'Kind',
    source: 'Source',
    time: 'Time',
    noLines: 'No lines.',
    more: 'The first {count} lines are shown; the CSV holds them all.',
    statement: 'Bank statement entry',
    notBooked: 'Not in a statement yet',
    settles: 'Settles',
    settles_payment: 'Payment',
    settles_refund: 'Refund {id}',
    settles_dispute: 'Dispute {id}',
    settles_dispute_reversal: 'Dispute won {id}',
    settles_acquirer_fee: 'Card fee',
    settles_bank_cost: 'Krafa bank charge',
    settles_reversal: 'Krafa reversed',
    period: 'All lines of a VAT period (CSV)',
  },
  is: {
    title: 'Uppgjör',
    intro: 'Hvað hver uppgjörskeyrsla greiddi inn á bankareikninginn þinn, með greiðslum og þóknunum.',
    run: 'Keyrsla',
    date: 'Uppgjörsdagur',
    status: 'Staða',
    gross: 'Brúttó',
    fee: 'Þóknanir',
    net: 'Nettó',
    payout: 'Útgreiðsla',
    lines: 'Línur',
    none: 'Engar uppgjörskeyrslur enn.',
    older: 'Eldri keyrslur',
    detail: 'Uppgjörskeyrsla {id}',
    account: 'Á reikning',
    paidAt: 'Greitt',
    reference: 'Tilvísun',
    noPayout: 'Engin útgreiðsla enn.',
    csv: 'Sækja línurnar sem CSV',
    kind: 'Tegund',
    source: 'Uppruni',
    time: 'Tími',
    noLines: 'Engar línur.',
    more: 'Fyrstu {count} línurnar eru sýndar; CSV-skráin geymir þær allar.',
    statement: 'Færsla á bankayfirliti',
    notBooked: 'Ekki enn á yfirliti',
    settles: 'Gerir upp',
    settles_payment: 'Greiðsla',
    settles_refund: 'Endurgreiðsla {id}',
    settles_dispute: 'Endurkrafa {id}',
    settles_dispute_reversal: 'Endurkrafa unnin {id}',
    settles_acquirer_fee: 'Kortagjald',
    settles_bank_cost: 'Bankakostnaður kröfu',
    settles_reversal: 'Bakfærð krafa',
    period: 'Allar línur VSK-tímabils (CSV)',
  },
});

/**
 * `/dashboard/settlement`: the merchant's own settlement runs and payouts, each run's lines and
 * their CSV, for the roles with `read_settlement`. Read only: approving runs is the platform's
 * finance operators' work (`/dashboard/finance`), not a merchant's.
 */
export function settlementPages(ctx: WebContext): Router {
  const router = Router();
  const { data } = ctx.services;

  router.get('/dashboard/settlement', async (req, res) => {
    const view = merchantView(req, res);
    const l = view.locale;
    const after = typeof req.query.after === 'string' ? req.query.after.slice(0, 100) : undefined;
    let page;
    try {
      page = await data.settlement.listRuns(
        view.scope,
        {},
        { limit: 25, ...(after && { startingAfter: after }) },
      );
    } catch (err) {
      const f = failure(err);
      sendMerchantPage(res, view, html``, { title: t(l, 'title'), status: f.status, error: f.message });
      return;
    }
    const last = page.data[page.data.length - 1];
    const body = html`<p>${t(l, 'intro')}</p>
      ${table(
        t(l, 'title'),
        [t(l, 'run'), t(l, 'date'), t(l, 'status'), t(l, 'gross'), t(l, 'fee'), t(l, 'net'), t(l, 'payout')],
        page.data.map(
          (r) =>
            html`<tr data-run="${r.id}">
              <td><a href="/dashboard/settlement/${r.id}">${r.id}</a></td>
              <td>${r.settlement_date}</td>
              <td>${statusBadge(r.status, l)}</td>
              <td>${formatIsk(r.gross, view.locale)}</td>
              <td>${formatIsk(r.fee, view.locale)}</td>
              <td>${formatIsk(r.net, view.locale)}</td>
              <td>${r.payout ? `${r.payout.status} · ${formatIsk(r.payout.amount, view.locale)}` : '—'}</td>
            </tr>`,
        ),
        t(l, 'none'),
      )}
      ${nextPage(page.hasMore && last ? `/dashboard/settlement?after=${last.id}` : null, t(l, 'older'))}`;
    sendMerchantPage(res, view, body, { title: t(l, 'title') });
  });

  router.get('/dashboard/settlement/:id', async (req, res) => {
    const view = merchantView(req, res);
    const l = view.locale;
    let run;
    let lines;
    try {
      run = await data.settlement.retrieveRun(view.scope, String(req.params.id));
      lines = await data.settlement.listLines(view.scope, run.id, { limit: LINES_SHOWN });
    } catch (err) {
      const f = failure(err);
      sendMerchantPage(res, view, html``, { title: t(l, 'title'), status: f.status, error: f.message });
      return;
    }
    const p = run.payout;
    const body = html`${facts([
        [t(l, 'date'), run.settlement_date],
        [t(l, 'status'), statusBadge(run.status, l)],
        [t(l, 'gross'), formatIsk(run.gross, view.locale)],
        [t(l, 'fee'), formatIsk(run.fee, view.locale)],
        [t(l, 'net'), html`<span data-testid="run-net">${formatIsk(run.net, view.locale)}</span>`],
        [t(l, 'lines'), String(run.line_count)],
      ])}
      <h2>${t(l, 'payout')}</h2>
      ${
        p
          ? facts([
              [t(l, 'status'), statusBadge(p.status, l, 'payout-status')],
              [t(l, 'net'), formatIsk(p.amount, view.locale)],
              [t(l, 'account'), p.destination_account],
              [t(l, 'reference'), p.end_to_end_id],
              [t(l, 'paidAt'), when(p.paid_at, l)],
              [
                t(l, 'statement'),
                p.bank_entry
                  ? html`<span data-testid="payout-bank-entry"
                      >${p.bank_entry.acct_svcr_ref ?? p.bank_entry.id} · ${p.bank_entry.booking_date ?? ''} ·
                      ${formatIsk(p.bank_entry.amount, view.locale)} · ${p.bank_entry.file}</span
                    >`
                  : t(l, 'notBooked'),
              ],
            ])
          : html`<p>${t(l, 'noPayout')}</p>`
      }
      <h2>${t(l, 'lines')}</h2>
      <p><a href="/dashboard/settlement/${run.id}/lines.csv" download>${t(l, 'csv')}</a></p>
      ${lines.hasMore ? html`<p>${t(l, 'more', { count: LINES_SHOWN })}</p>` : ''}
      ${table(
        t(l, 'lines'),
        [
          t(l, 'source'),
          t(l, 'settles'),
          t(l, 'kind'),
          t(l, 'gross'),
          t(l, 'fee'),
          t(l, 'net'),
          t(l, 'time'),
        ],
        lines.data.map(
          (line) =>
            html`<tr>
              <td>
                ${
                  line.payment_intent
                    ? html`<a href="/dashboard/payments/${line.payment_intent}">${line.source}</a>`
                    : line.source
                }
              </td>
              <td data-settles="${line.kind}">
                ${t(l, `settles_${line.kind}`, { id: line.refund ?? line.dispute ?? '' })}
              </td>
              <td>${line.fee_kind}</td>
              <td>${formatIsk(line.gross, view.locale)}</td>
              <td>${formatIsk(line.fee, view.locale)}</td>
              <td>${formatIsk(line.net, view.locale)}</td>
              <td>${when(line.occurred_at, l)}</td>
            </tr>`,
        ),
        t(l, 'noLines'),
      )}`;
    sendMerchantPage(res, view, body, { title: t(l, 'detail', { id: run.id }) });
  });

  router.get('/dashboard/settlement/:id/lines.csv', async (req, res) => {
    const view = merchantView(req, res);
    const id = String(req.params.id);
    await sendDownload(
      res,
      view,
      { type: 'text/csv; charset=utf-8', filename: `${id}-lines.csv`, title: t(view.locale, 'title') },
      async () => (await data.settlement.linesCsv(view.scope, id)).csv,
    );
  });

  return router;
}
