import { Router } from 'express';
import { formatIsk } from '../../domain/isk';
import type { Locale } from '../../domain/locale';
import { html } from '../../html/html';
import { defineMessages } from '../messages';
import type { WebContext } from './context';
import { writeChunks } from '../../services/books/write-chunks';
import { facts, loadOrSendFailure, merchantView, nextPage, sendMerchantPage, table } from './frame';

const BOXES = ['A', 'B', 'C', 'D', 'out_of_scope'] as const;
type Box = (typeof BOXES)[number];

const t = defineMessages({
  en: {
    title: 'VAT return',
    period: 'Period',
    show: 'Show',
    periodHint: 'Two months by their first month (2027-01 is January–February) or a year (2027)',
    dueDate: 'Due date',
    vatNumber: 'VAT number',
    none: 'not registered',
    box: 'Box',
    amount: 'Amount',
    box_A: 'A: sales at 24 % without VAT',
    box_B: 'B: sales at 11 % without VAT',
    box_C: 'C: zero-rated sales (art. 12)',
    box_D: 'D: output VAT',
    box_out_of_scope: 'Exempt and outside the scope of VAT (not on the return)',
    credits: 'Of which credit notes and till refunds',
    open: 'Documents',
    export: 'Download CSV',
    documents: 'Documents behind {box}',
    type: 'Document',
    number: 'Number',
    date: 'Date',
    figure: 'In the box',
    noDocuments: 'No documents.',
    more: 'More documents',
    type_invoice: 'Invoice',
    type_credit_note: 'Credit note',
    type_pos_sale: 'Till sale',
    type_pos_refund: 'Till refund',
    note: 'Boxes E–H (input VAT and the payment) come from your own purchases and are not in Skil.',
  },
  is: {
    title: 'Virðisaukaskattsskýrsla',
    period: 'Tímabil',
    show: 'Sýna',
    periodHint: 'Tveir mánuðir, merktir fyrri mánuðinum (2027-01 er janúar–febrúar), eða ár (2027)',
    dueDate: 'Gjalddagi',
    vatNumber: 'VSK-númer',
    none: 'ekki á skrá',
    box: 'Reitur',
    amount: 'Fjárhæð',
    box_A: 'A: sala í 24% þrepi án VSK',
    box_B: 'B: sala í 11% þrepi án VSK',
    box_C: 'C: undanþegin sala (12. gr.)',
    box_D: 'D: útskattur',
    box_out_of_scope: 'Undanþegið og utan gildissviðs VSK (ekki á skýrslu)',
    credits: 'Þar af kreditreikningar og endurgreiðslur í kassa',
    open: 'Skjöl',
    export: 'Sækja CSV',
    documents: 'Skjöl að baki {box}',
    type: 'Skjal',
    number: 'Númer',
    date: 'Dagsetning',
    figure: 'Í reitnum',
    noDocuments: 'Engin skjöl.',
    more: 'Fleiri skjöl',
    type_invoice: 'Reikningur',
    type_credit_note: 'Kreditreikningur',
    type_pos_sale: 'Sala í kassa',
    type_pos_refund: 'Endurgreiðsla í kassa',
    note: 'Reitir E–H (innskattur og greiðsla) koma úr eigin innkaupum og eru ekki í Skil.',
  },
});

const boxLabel = (l: Locale, b: Box) => t(l, `box_${b}`);

/** Where a document is seen in the dashboard. */
function documentHref(type: string, id: string, parent: string | null): string | null {
  if (type === 'invoice') return `/dashboard/invoices/${id}`;
  if (type === 'credit_note' && parent) return `/dashboard/invoices/${parent}`;
  return null;
}

/**
 * `/dashboard/vat`: the VAT return's figures of a period, each box opening to the documents behind
 * it, and the CSV (decision 0238). Money figures: members who may read settlement (decision 0232).
 */
export function vatReportPages(ctx: WebContext): Router {
  const router = Router();
  const service = () => ctx.services.vatReport;

  router.get('/dashboard/vat', async (req, res) => {
    const view = merchantView(req, res);
    const l = view.locale;
    const asked =
      typeof req.query.period === 'string' && req.query.period !== '' ? req.query.period : undefined;
    const box = BOXES.find((b) => b === req.query.box);
    const after = typeof req.query.after === 'string' ? req.query.after.slice(0, 64) : undefined;
    const report = await loadOrSendFailure(res, view, t(l, 'title'), () =>
      service().report(view.scope, { period: asked }),
    );
    if (!report) return;
    const p = report.period.id;
    const isk = (n: number) => formatIsk(n, l);
    const form = html`<form method="get" action="/dashboard/vat" class="filters">
      <label for="vat-period">${t(l, 'period')}</label>
      <input id="vat-period" name="period" value="${p}" aria-describedby="vat-period-hint" />
      <p id="vat-period-hint" class="hint">${t(l, 'periodHint')}</p>
      <button type="submit">${t(l, 'show')}</button>
    </form>`;
    const summary = facts([
      [t(l, 'period'), `${report.period.start} – ${report.period.end}`],
      [t(l, 'dueDate'), html`<span data-testid="vat-due-date">${report.period.due_date}</span>`],
      [t(l, 'vatNumber'), report.vat_number ?? t(l, 'none')],
    ]);
    const boxes = table(
      t(l, 'title'),
      [t(l, 'box'), t(l, 'amount'), t(l, 'credits'), t(l, 'open')],
      BOXES.map(
        (b) =>
          html`<tr data-box="${b}">
            <td>${boxLabel(l, b)}</td>
            <td data-testid="box-${b}">${isk(report.boxes[b])}</td>
            <td>${isk(report.credits[b])}</td>
            <td><a href="/dashboard/vat?period=${p}&amp;box=${b}#documents">${t(l, 'open')}</a></td>
          </tr>`,
      ),
      '',
    );
    let documents = html``;
    if (box) {
      const page = await service().documents(view.scope, {
        period: p,
        box,
        limit: 50,
        ...(after !== undefined && { startingAfter: after }),
      });
      const last = page.data[page.data.length - 1];
      documents = html`<section id="documents" aria-labelledby="documents-title">
        <h2 id="documents-title">${t(l, 'documents', { box: boxLabel(l, box) })}</h2>
        ${table(
          t(l, 'documents', { box: boxLabel(l, box) }),
          [t(l, 'type'), t(l, 'number'), t(l, 'date'), t(l, 'figure')],
          page.data.map((d) => {
            const href = documentHref(d.type, d.id, d.parent);
            return html`<tr data-document="${d.id}">
              <td>${t(l, `type_${d.type}`)}</td>
              <td>${href ? html`<a href="${href}">${d.number ?? d.id}</a>` : (d.number ?? d.id)}</td>
              <td>${d.date}</td>
              <td>${isk(d.figures[box])}</td>
            </tr>`;
          }),
          t(l, 'noDocuments'),
        )}
        ${nextPage(
          page.hasMore && last ? `/dashboard/vat?period=${p}&box=${box}&after=${last.id}#documents` : null,
          t(l, 'more'),
        )}
      </section>`;
    }
    const body = html`${form} ${summary}
      <p><a href="/dashboard/vat/export.csv?period=${p}" download>${t(l, 'export')}</a></p>
      ${boxes}
      <p class="hint">${t(l, 'note')}</p>
      ${documents}`;
    sendMerchantPage(res, view, body, { title: t(l, 'title') });
  });

  router.get('/dashboard/vat/export.csv', async (req, res) => {
    const view = merchantView(req, res);
    const asked = typeof req.query.period === 'string' ? req.query.period : undefined;
    const period = await loadOrSendFailure(res, view, t(view.locale, 'title'), () =>
      service().periodFor(view.scope, asked),
    );
    if (!period) return;
    res.status(200).type('text/csv; charset=utf-8');
    res.setHeader('Content-Disposition', `attachment; filename="vat-${period.id}.csv"`);
    res.setHeader('Cache-Control', 'no-store');
    await writeChunks(res, service().csv(view.scope, { period: period.id }), (err) =>
      ctx.log.error({ err }, 'VAT export failed'),
    );
  });

  return router;
}
