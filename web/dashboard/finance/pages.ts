import { tableFrame } from '../../layout';
import { formatIsk } from '../../../domain/isk';
import { Router } from 'express';
import { ApiError } from '../../../domain/errors';
import { html, type SafeHtml } from '../../../html/html';
import { requireCsrf, requireUser, type WebContext } from '../context';
import {
  financeHref,
  financeView,
  operatorActor,
  sendFinanceNotFound,
  sendFinancePage,
  type FinanceView,
} from './frame';
import { chartDates, dailyChart, fillDays } from './chart';
import type { RunSummary } from '../../../services/finance/runs';
import { runPage } from './run-page';
import { merchantFilterForm, readMerchantFilter } from './merchant-filter';
import { financeBankPages } from './bank-pages';

/**
 * The settlement half of the finance dashboard: runs by day with the 90-day chart, a run's page
 * and its approval. Approval is the settlement service's `approveRun` (injected, so this file does
 * not reimplement it and the dashboard runs without Temporal in tests that need no approval).
 */

const DAYS_PER_PAGE = 14;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
// A day's statuses are listed in the order a run moves through them.
const STATUS_ORDER = ['open', 'pending_review', 'approved', 'submitted', 'paid', 'failed'];

function money(view: FinanceView, value: number): SafeHtml {
  return html`<td class="num">${formatIsk(value, view.lang)}</td>`;
}

function groupByDay(runs: RunSummary[]): Map<string, RunSummary[]> {
  const days = new Map<string, RunSummary[]>();
  for (const run of runs) {
    const list = days.get(run.settlement_date) ?? [];
    list.push(run);
    days.set(run.settlement_date, list);
  }
  return days;
}

function runsTable(view: FinanceView, runs: RunSummary[]): SafeHtml {
  const { t } = view;
  const days = [...groupByDay(runs)].map(([date, list]) => {
    const sum = (k: 'gross' | 'fee' | 'net') => list.reduce((acc, r) => acc + r[k], 0);
    const statuses = STATUS_ORDER.filter((s) => list.some((r) => r.status === s))
      .map((s) => t.runStatus[s] ?? s)
      .join(', ');
    return html`<tbody data-date="${date}">
      <tr class="day-total">
        <th scope="rowgroup">${date}</th>
        <td>${t.dayTotal}: ${list.length}</td>
        <td>${statuses}</td>
        ${money(view, sum('gross'))}${money(view, sum('fee'))}${money(view, sum('net'))}
        <td class="num">${list.reduce((acc, r) => acc + r.line_count, 0)}</td>
      </tr>
      ${list.map(
        (r) =>
          html`<tr data-run="${r.id}">
            <td><a href="${financeHref(view, `/runs/${r.id}`)}">${r.id}</a></td>
            <td>${r.merchant_name}</td>
            <td>${t.runStatus[r.status] ?? r.status}</td>
            ${money(view, r.gross)}${money(view, r.fee)}${money(view, r.net)}
            <td class="num">${r.line_count}</td>
          </tr>`,
      )}
    </tbody>`;
  });
  return tableFrame(
    t.runsByDay,
    html`<table class="runs">
      <caption>
        ${t.runsByDay}
      </caption>
      <thead>
        <tr>
          <th scope="col">${t.date}</th>
          <th scope="col">${t.merchant}</th>
          <th scope="col">${t.status}</th>
          <th scope="col" class="num">${t.gross}</th>
          <th scope="col" class="num">${t.fees}</th>
          <th scope="col" class="num">${t.net}</th>
          <th scope="col" class="num">${t.lineCount}</th>
        </tr>
      </thead>
      ${days}
    </table>`,
  );
}

export function financePages(ctx: WebContext): Router {
  const { financeRuns, settlement } = ctx.services;
  const router = Router();
  router.use('/dashboard/finance', requireUser('operator'), requireCsrf(ctx));

  router.get('/dashboard/finance', async (req, res) => {
    const view = financeView(req, res, ctx);
    const { t } = view;
    const before =
      typeof req.query.before === 'string' && DATE.test(req.query.before) ? req.query.before : undefined;
    const filter = await readMerchantFilter(financeRuns, view, req.query.merchant);
    const form = merchantFilterForm(view, filter);
    // No figures at all under a filter that names no merchant: the message and the form only.
    if (filter.error)
      return sendFinancePage(res, view, form, {
        title: t.runsByDay,
        section: '',
        here: '',
        error: filter.error.message,
        status: filter.error.status,
      });
    const merchantId = filter.merchant?.id;
    // The environment switch, the language links and the older days keep the filter.
    const keep: Record<string, string> = merchantId ? { merchant: merchantId } : {};
    const dates = chartDates(new Date().toISOString().slice(0, 10));
    const { runs, totals } = await financeRuns.overview(view.livemode, {
      days: DAYS_PER_PAGE,
      before,
      merchantId,
      from: dates[0]!,
      to: dates[dates.length - 1]!,
    });
    const oldest = runs[runs.length - 1]?.settlement_date;
    const more =
      oldest && new Set(runs.map((r) => r.settlement_date)).size === DAYS_PER_PAGE
        ? html`<p>
            <a href="${financeHref(view, '', { ...keep, before: oldest })}">${t.runsByDay} &lt; ${oldest}</a>
          </p>`
        : '';
    const empty = filter.merchant ? t.noRunsOfMerchant(filter.merchant.name) : t.noRuns;
    const body = html`${form} ${dailyChart(fillDays(dates, totals), view.lang, t, filter.merchant?.name)}
    ${runs.length ? runsTable(view, runs) : html`<p>${empty}</p>`} ${more}`;
    sendFinancePage(res, view, body, { title: t.runsByDay, section: '', here: '', keep });
  });

  router.get('/dashboard/finance/runs/:id', async (req, res) => {
    const after =
      typeof req.query.after === 'string' && /^\d{1,15}$/.test(req.query.after)
        ? Number(req.query.after)
        : undefined;
    const view = financeView(req, res, ctx);
    await runPage(ctx, res, view, String(req.params.id), {
      after,
      ...(req.query.done === 'approved' && { ok: view.t.approved }),
    });
  });

  router.post('/dashboard/finance/runs/:id/approve', async (req, res) => {
    const view = financeView(req, res, ctx);
    const id = String(req.params.id);
    // The run must exist in the environment the operator is looking at before anything is approved.
    const run = await financeRuns.findRun(view.livemode, id);
    if (!run) return sendFinanceNotFound(res, view, '');
    if (!settlement) return runPage(ctx, res, view, id, { error: view.t.approveUnavailable, status: 503 });
    try {
      await settlement.approveRun(id, operatorActor(view));
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      return runPage(ctx, res, view, id, { error: err.message, status: err.status });
    }
    res.redirect(303, financeHref(view, `/runs/${id}`, { done: 'approved' }));
  });

  router.use(financeBankPages(ctx));
  return router;
}
