import { Router, type Response } from 'express';
import type { AuditActor } from '../db/audit-log';
import { ApiError } from '../domain/errors';
import { html, type SafeHtml } from './html';
import { requireCsrf, requireUser, type WebContext } from './context';
import {
  financeHref,
  financeView,
  operatorActor,
  sendFinanceNotFound,
  sendFinancePage,
  type FinanceView,
} from './finance-frame';
import { formatIsk, formatTime } from './finance-strings';
import { chartDates, dailyChart, fillDays } from './finance-chart';
import {
  dailyTotals,
  exceptionsOfDay,
  findRun,
  runLines,
  runPayout,
  runsOfRecentDays,
} from './finance-queries';
import type { RunSummary } from './finance-queries';
import { exceptionsTable } from './finance-exception-table';
import { merchantFilterForm, readMerchantFilter } from './finance-merchant-filter';
import { financeBankPages } from './finance-bank-pages';

/**
 * The settlement half of the finance dashboard: runs by day with the 90-day chart, a run's page
 * and its approval. Approval is the settlement service's `approveRun` (injected, so this file does
 * not reimplement it and the dashboard runs without Temporal in tests that need no approval).
 */

export interface RunApprover {
  approveRun(runId: string, actor: AuditActor): Promise<unknown>;
}

export interface FinanceDeps {
  /** The settlement service; null when the server has no Temporal connection. */
  settlement?: RunApprover | null | undefined;
}

const DAYS_PER_PAGE = 14;
const LINES_PER_PAGE = 500;
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
  return html`<table class="runs">
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
  </table>`;
}

export function financePages(ctx: WebContext, deps: FinanceDeps): Router {
  const router = Router();
  router.use('/dashboard/finance', requireUser('operator'), requireCsrf(ctx));

  router.get('/dashboard/finance', async (req, res) => {
    const view = financeView(req, res, ctx);
    const { t } = view;
    const before =
      typeof req.query.before === 'string' && DATE.test(req.query.before) ? req.query.before : undefined;
    const filter = await readMerchantFilter(ctx.knex, view, req.query.merchant);
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
    const [runs, totals] = await Promise.all([
      runsOfRecentDays(ctx.knex, view.livemode, { days: DAYS_PER_PAGE, before, merchantId }),
      dailyTotals(ctx.knex, view.livemode, dates[0]!, dates[dates.length - 1]!, merchantId),
    ]);
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

  async function runPage(
    res: Response,
    view: FinanceView,
    id: string,
    opts: { after?: number | undefined; error?: string; ok?: string; status?: number } = {},
  ): Promise<void> {
    const { t } = view;
    const run = await findRun(ctx.knex, view.livemode, id);
    if (!run) return sendFinanceNotFound(res, view, '');
    const [lines, payout, exceptions] = await Promise.all([
      runLines(ctx.knex, run, { after: opts.after, limit: LINES_PER_PAGE }),
      runPayout(ctx.knex, run),
      exceptionsOfDay(ctx.knex, view.livemode, run.settlement_date),
    ]);
    const lastLine = lines[lines.length - 1];
    const approve =
      run.status === 'pending_review'
        ? deps.settlement
          ? html`<form method="post" action="/dashboard/finance/runs/${run.id}/approve">
              ${view.csrf}<button type="submit">${t.approve}</button>
            </form>`
          : html`<p>${t.approveUnavailable}</p>`
        : '';
    const body = html`<dl class="totals" data-testid="run-totals">
        <dt>${t.merchant}</dt>
        <dd>${run.merchant_name}</dd>
        <dt>${t.date}</dt>
        <dd>${run.settlement_date}</dd>
        <dt>${t.status}</dt>
        <dd data-testid="run-status">${t.runStatus[run.status] ?? run.status}</dd>
        <dt>${t.gross}</dt>
        <dd data-testid="run-gross">${formatIsk(run.gross, view.lang)}</dd>
        <dt>${t.fees}</dt>
        <dd data-testid="run-fee">${formatIsk(run.fee, view.lang)}</dd>
        <dt>${t.net}</dt>
        <dd data-testid="run-net">${formatIsk(run.net, view.lang)}</dd>
        <dt>${t.lineCount}</dt>
        <dd>${run.line_count}</dd>
        ${
          run.approved_by
            ? html`<dt>${t.approvedBy}</dt>
                <dd>${run.approved_by}, ${formatTime(run.approved_at)}</dd>`
            : ''
        }
      </dl>
      ${approve}
      <h2>${t.payout}</h2>
      ${
        payout
          ? html`<dl class="totals" data-testid="payout">
              <dt>${t.payout}</dt>
              <dd>${payout.id}</dd>
              <dt>${t.amount}</dt>
              <dd>${formatIsk(payout.amount, view.lang)}</dd>
              <dt>${t.status}</dt>
              <dd data-testid="payout-status">${payout.status}</dd>
              <dt>${t.destination}</dt>
              <dd>${payout.destination_account}</dd>
              ${
                payout.failure_reason
                  ? html`<dt>!</dt>
                      <dd>${payout.failure_reason}</dd>`
                  : ''
              }
            </dl>`
          : html`<p>${t.noPayout}</p>`
      }
      <h2>${t.lines}</h2>
      <table class="lines">
        <thead>
          <tr>
            <th scope="col">${t.kind}</th>
            <th scope="col">${t.feeKind}</th>
            <th scope="col">${t.paymentIntent}</th>
            <th scope="col">${t.source}</th>
            <th scope="col" class="num">${t.gross}</th>
            <th scope="col" class="num">${t.fee}</th>
            <th scope="col" class="num">${t.net}</th>
            <th scope="col">${t.occurred}</th>
          </tr>
        </thead>
        <tbody>
          ${lines.map(
            (l) =>
              html`<tr>
                <td>${l.kind}</td>
                <td>${l.fee_kind}</td>
                <td>${l.payment_intent_id ?? '—'}</td>
                <td>${l.source_id}</td>
                ${money(view, l.gross)}${money(view, l.fee)}${money(view, l.net)}
                <td>${formatTime(l.occurred_at)}</td>
              </tr>`,
          )}
        </tbody>
      </table>
      ${
        lastLine && lines.length === LINES_PER_PAGE
          ? html`<p>
              <a href="${financeHref(view, `/runs/${run.id}`, { after: String(lastLine.id) })}"
                >${t.moreEntries}</a
              >
            </p>`
          : ''
      }
      <h2>${t.dayExceptions}</h2>
      ${exceptions.length ? exceptionsTable(view, exceptions, { actions: false }) : html`<p>${t.noExceptions}</p>`}`;
    sendFinancePage(res, view, body, {
      title: t.run(run.id),
      section: '',
      here: `/runs/${run.id}`,
      error: opts.error,
      ok: opts.ok,
      ...(opts.status !== undefined && { status: opts.status }),
    });
  }

  router.get('/dashboard/finance/runs/:id', async (req, res) => {
    const after =
      typeof req.query.after === 'string' && /^\d{1,15}$/.test(req.query.after)
        ? Number(req.query.after)
        : undefined;
    const view = financeView(req, res, ctx);
    await runPage(res, view, String(req.params.id), {
      after,
      ...(req.query.done === 'approved' && { ok: view.t.approved }),
    });
  });

  router.post('/dashboard/finance/runs/:id/approve', async (req, res) => {
    const view = financeView(req, res, ctx);
    const id = String(req.params.id);
    // The run must exist in the environment the operator is looking at before anything is approved.
    const run = await findRun(ctx.knex, view.livemode, id);
    if (!run) return sendFinanceNotFound(res, view, '');
    if (!deps.settlement) return runPage(res, view, id, { error: view.t.approveUnavailable, status: 503 });
    try {
      await deps.settlement.approveRun(id, operatorActor(view));
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      return runPage(res, view, id, { error: err.message, status: err.status });
    }
    res.redirect(303, financeHref(view, `/runs/${id}`, { done: 'approved' }));
  });

  router.use(financeBankPages(ctx));
  return router;
}
