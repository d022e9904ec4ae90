import { tableFrame } from '../../layout';
import { formatLocalTime } from '../../../domain/local-time';
import { formatIsk } from '../../../domain/isk';
import type { Response } from 'express';
import { html, type SafeHtml } from '../../../html/html';
import type { WebContext } from '../context';
import { financeHref, sendFinanceNotFound, sendFinancePage, type FinanceView } from './frame';

import { exceptionsTable } from './exception-table';
import { feeDetails } from '../../../domain/settlement-lines';

/**
 * A settlement run's page: its totals, the approve button while it waits for review, its payout,
 * a page of its lines and the exceptions of its settlement day.
 */

const LINES_PER_PAGE = 500;

function money(view: FinanceView, value: number): SafeHtml {
  return html`<td class="num">${formatIsk(value, view.lang)}</td>`;
}

export async function runPage(
  ctx: WebContext,
  res: Response,
  view: FinanceView,
  id: string,
  opts: { after?: number | undefined; error?: string; ok?: string; status?: number } = {},
): Promise<void> {
  const { t } = view;
  const found = await ctx.services.financeRuns.runDetail(view.livemode, id, {
    after: opts.after,
    linesPerPage: LINES_PER_PAGE,
  });
  if (!found) return sendFinanceNotFound(res, view, '');
  const { run, lines, payout, exceptions } = found;
  const lastLine = lines[lines.length - 1];
  const approve =
    run.status === 'pending_review'
      ? ctx.services.settlement
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
      ${feeDetails({ fee: run.fee, acquirerFee: run.acquirer_fee, bankCost: run.bank_cost }).map(
        (d) =>
          html`<dt>${t.feeDetail[d.type]}</dt>
            <dd data-testid="run-${d.type}">${formatIsk(d.amount, view.lang)}</dd>`,
      )}
      <dt>${t.net}</dt>
      <dd data-testid="run-net">${formatIsk(run.net, view.lang)}</dd>
      <dt>${t.lineCount}</dt>
      <dd>${run.line_count}</dd>
      ${
        run.approved_by
          ? html`<dt>${t.approvedBy}</dt>
              <dd>${run.approved_by}, ${formatLocalTime(run.approved_at, view.lang)}</dd>`
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
    ${tableFrame(
      t.lines,
      html`<table class="lines">
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
                <td>${formatLocalTime(l.occurred_at, view.lang)}</td>
              </tr>`,
          )}
        </tbody>
      </table>`,
    )}
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
