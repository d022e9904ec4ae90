import { Router } from 'express';
import { formatIsk } from '../../domain/isk';
import { html } from '../../html/html';
import { defineMessages } from '../messages';
import type { WebContext } from './context';
import { writeChunks } from '../../services/books/write-chunks';
import { facts, loadOrSendFailure, merchantView, nextPage, sendMerchantPage, table, when } from './frame';

const t = defineMessages({
  en: {
    title: 'Journal',
    period: 'Period',
    show: 'Show',
    periodHint: 'Two months by their first month (2027-01 is January–February) or a year (2027)',
    status: 'Status',
    status_open: 'Open: the figures change as sales, refunds and payouts happen',
    status_closed: 'Closed on {at}: this journal and its download no longer change',
    totals: 'Debit and credit',
    export: 'Download CSV',
    exportRegla: 'For Regla (CSV to import)',
    settlement: 'Payouts of the period with their lines and bank statement entries (CSV)',
    accounts: 'Account numbers are set in the API (chart of accounts); closed periods keep theirs.',
    date: 'Date',
    source: 'Source',
    reference: 'Reference',
    account: 'Account',
    debit: 'Debit',
    credit: 'Credit',
    none: 'No entries in this period.',
    more: 'More entries',
    vat: 'VAT return of this period',
    type_invoice: 'Invoice',
    type_credit_note: 'Credit note',
    type_pos_sale: 'Till sale',
    type_pos_refund: 'Till refund',
    type_payment: 'Payment',
    type_refund: 'Refund',
    type_reversal: 'Krafa reversed',
    type_dispute: 'Dispute',
    type_dispute_won: 'Dispute won',
    type_acquirer_fee: 'Card fee',
    type_bank_cost: 'Krafa bank charge',
    type_payout: 'Payout',
  },
  is: {
    title: 'Dagbók',
    period: 'Tímabil',
    show: 'Sýna',
    periodHint: 'Tveir mánuðir, merktir fyrri mánuðinum (2027-01 er janúar–febrúar), eða ár (2027)',
    status: 'Staða',
    status_open: 'Opið: tölurnar breytast með sölu, endurgreiðslum og útgreiðslum',
    status_closed: 'Lokað {at}: dagbókin og skráin breytast ekki framar',
    totals: 'Debet og kredit',
    export: 'Sækja CSV',
    exportRegla: 'Fyrir Reglu (CSV til innlestrar)',
    settlement: 'Útgreiðslur tímabilsins með línum og færslum á bankayfirliti (CSV)',
    accounts: 'Bókhaldslyklar eru stilltir í API-inu (bókhaldslyklar); lokuð tímabil halda sínum.',
    date: 'Dagsetning',
    source: 'Uppruni',
    reference: 'Tilvísun',
    account: 'Lykill',
    debit: 'Debet',
    credit: 'Kredit',
    none: 'Engar færslur á tímabilinu.',
    more: 'Fleiri færslur',
    vat: 'Virðisaukaskattsskýrsla tímabilsins',
    type_invoice: 'Reikningur',
    type_credit_note: 'Kreditreikningur',
    type_pos_sale: 'Sala í kassa',
    type_pos_refund: 'Endurgreiðsla í kassa',
    type_payment: 'Greiðsla',
    type_refund: 'Endurgreiðsla',
    type_reversal: 'Bakfærð krafa',
    type_dispute: 'Endurkrafa',
    type_dispute_won: 'Endurkrafa unnin',
    type_acquirer_fee: 'Kortagjald',
    type_bank_cost: 'Bankakostnaður kröfu',
    type_payout: 'Útgreiðsla',
  },
});

/** Where a source is seen in the dashboard. */
function sourceHref(type: string, id: string): string | null {
  if (type === 'invoice') return `/dashboard/invoices/${id}`;
  if (type === 'payment') return `/dashboard/payments/${id}`;
  return null;
}

/**
 * `/dashboard/journal`: a period's journal, a row per line, paged, with its status and the CSV
 * (decisions 0239, 0240); beside the VAT return, for the members who may read settlement figures.
 */
export function journalPages(ctx: WebContext): Router {
  const router = Router();
  const service = () => ctx.services.journal;

  router.get('/dashboard/journal', async (req, res) => {
    const view = merchantView(req, res);
    const l = view.locale;
    const asked =
      typeof req.query.period === 'string' && req.query.period !== '' ? req.query.period : undefined;
    const token = typeof req.query.page === 'string' ? req.query.page.slice(0, 200) : undefined;
    const page = await loadOrSendFailure(res, view, t(l, 'title'), () =>
      service().page(view.scope, { period: asked, limit: 50, page: token }),
    );
    if (!page) return;
    const p = page.period;
    const isk = (n: number) => (n === 0 ? '' : formatIsk(n, l));
    const form = html`<form method="get" action="/dashboard/journal" class="filters">
      <label for="journal-period">${t(l, 'period')}</label>
      <input id="journal-period" name="period" value="${p.id}" aria-describedby="journal-period-hint" />
      <p id="journal-period-hint" class="hint">${t(l, 'periodHint')}</p>
      <button type="submit">${t(l, 'show')}</button>
    </form>`;
    const summary = facts([
      [t(l, 'period'), `${p.start} – ${p.end}`],
      [
        t(l, 'status'),
        html`<span data-testid="journal-status" data-status="${p.status}"
          >${
            p.status === 'closed' ? t(l, 'status_closed', { at: when(p.closed_at, l) }) : t(l, 'status_open')
          }</span
        >`,
      ],
      ...(p.debit !== null
        ? [[t(l, 'totals'), `${formatIsk(p.debit, l)} / ${formatIsk(p.credit ?? 0, l)}`] as [string, string]]
        : []),
    ]);
    const rows = page.data.flatMap((e) =>
      e.lines.map((line, i) => {
        const href = sourceHref(e.source.type, e.source.id);
        const label = e.reference ?? e.source.id;
        return html`<tr data-entry="${e.source.type}:${e.source.id}">
          <td>${i === 0 ? e.date : ''}</td>
          <td>${i === 0 ? t(l, `type_${e.source.type}`) : ''}</td>
          <td>${i === 0 ? (href ? html`<a href="${href}">${label}</a>` : label) : ''}</td>
          <td>${line.account_number} ${line.account_name}</td>
          <td data-debit="${line.debit}">${isk(line.debit)}</td>
          <td data-credit="${line.credit}">${isk(line.credit)}</td>
        </tr>`;
      }),
    );
    const body = html`${form} ${summary}
      <p>
        <a href="/dashboard/journal/export.csv?period=${p.id}" download>${t(l, 'export')}</a> ·
        <a href="/dashboard/journal/export.csv?period=${p.id}&amp;format=regla" download
          >${t(l, 'exportRegla')}</a
        >
        ·
        <a href="/dashboard/vat?period=${p.id}">${t(l, 'vat')}</a> ·
        <a href="/dashboard/journal/settlement.csv?period=${p.id}" download>${t(l, 'settlement')}</a>
      </p>
      <p class="hint">${t(l, 'accounts')}</p>
      ${table(
        t(l, 'title'),
        [t(l, 'date'), t(l, 'source'), t(l, 'reference'), t(l, 'account'), t(l, 'debit'), t(l, 'credit')],
        rows,
        t(l, 'none'),
      )}
      ${nextPage(
        page.nextPage ? `/dashboard/journal?period=${p.id}&page=${encodeURIComponent(page.nextPage)}` : null,
        t(l, 'more'),
      )}`;
    sendMerchantPage(res, view, body, { title: t(l, 'title') });
  });

  router.get('/dashboard/journal/export.csv', async (req, res) => {
    const view = merchantView(req, res);
    const asked = typeof req.query.period === 'string' ? req.query.period : undefined;
    const period = await loadOrSendFailure(res, view, t(view.locale, 'title'), () =>
      service().periodFor(view.scope, asked),
    );
    if (!period) return;
    // Regla's import (decision 0260) or the generic CSV; anything else is the generic one.
    const format = req.query.format === 'regla' ? 'regla' : 'generic';
    const name = format === 'regla' ? `journal-regla-${period.id}` : `journal-${period.id}`;
    res.status(200).type('text/csv; charset=utf-8');
    res.setHeader('Content-Disposition', `attachment; filename="${name}.csv"`);
    res.setHeader('Cache-Control', 'no-store');
    await writeChunks(res, service().csv(view.scope, { period: period.id, format }), (err) =>
      ctx.log.error({ err }, 'journal export failed'),
    );
  });

  router.get('/dashboard/journal/settlement.csv', async (req, res) => {
    const view = merchantView(req, res);
    const asked = typeof req.query.period === 'string' ? req.query.period : undefined;
    const period = await loadOrSendFailure(res, view, t(view.locale, 'title'), () =>
      service().periodFor(view.scope, asked),
    );
    if (!period) return;
    res.status(200).type('text/csv; charset=utf-8');
    res.setHeader('Content-Disposition', `attachment; filename="settlement-${period.id}.csv"`);
    res.setHeader('Cache-Control', 'no-store');
    await writeChunks(res, service().settlementCsv(view.scope, period), (err) =>
      ctx.log.error({ err }, 'settlement period export failed'),
    );
  });

  return router;
}
