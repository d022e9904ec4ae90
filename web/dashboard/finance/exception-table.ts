import { tableFrame } from '../../layout';
import { formatLocalTime } from '../../../domain/local-time';
import { formatIsk } from '../../../domain/isk';
import { html, type SafeHtml } from '../../../html/html';
import type { ExceptionRow } from '../../../services/finance/bank';
import type { FinanceView } from './frame';
import { financeHref } from './frame';

/**
 * Bank exceptions as a table: on a run's page (read only) and in the queue, where each open
 * exception carries its two forms, resolve with a payment and mark handled, each with its note.
 */

function amount(view: FinanceView, x: ExceptionRow): SafeHtml {
  const shown = x.actual_amount ?? x.expected_amount;
  if (shown === null) return html`—`;
  const expected =
    x.expected_amount !== null && x.actual_amount !== null && x.expected_amount !== x.actual_amount
      ? html`<br /><small>${view.t.expected} ${formatIsk(x.expected_amount, view.lang)}</small>`
      : '';
  return html`${formatIsk(shown, view.lang)}${expected}`;
}

function actions(view: FinanceView, x: ExceptionRow): SafeHtml {
  const { t } = view;
  const base = `/dashboard/finance/exceptions/${x.id}`;
  return html`<form class="exception-action" method="post" action="${base}/resolve">
      ${view.csrf}
      <fieldset>
        <legend>${t.resolveWithPayment}</legend>
        <label for="pi-${x.id}">${t.paymentIntentId}</label>
        <input id="pi-${x.id}" name="payment_intent" required maxlength="80" autocomplete="off" />
        <label for="rn-${x.id}">${t.note}</label>
        <input id="rn-${x.id}" name="note" required maxlength="1000" />
        <button type="submit">${t.resolve}</button>
      </fieldset>
    </form>
    <form class="exception-action" method="post" action="${base}/handle">
      ${view.csrf}
      <fieldset>
        <legend>${t.markHandled}</legend>
        <label for="hn-${x.id}">${t.note}</label>
        <input id="hn-${x.id}" name="note" required maxlength="1000" />
        <button type="submit" class="secondary">${t.markHandled}</button>
      </fieldset>
    </form>`;
}

function resolution(view: FinanceView, x: ExceptionRow): SafeHtml {
  if (x.status === 'open') return html``;
  return html`<br /><small
      >${x.resolved_payment_intent_id ? html`${x.resolved_payment_intent_id}: ` : ''}${x.resolution_note} ·
      ${view.t.resolvedBy} ${x.resolved_by} · ${formatLocalTime(x.resolved_at, view.lang)}</small
    >`;
}

export function exceptionsTable(
  view: FinanceView,
  rows: ExceptionRow[],
  opts: { actions: boolean },
): SafeHtml {
  const { t } = view;
  return tableFrame(
    t.exceptions,
    html`<table class="exceptions">
      <thead>
        <tr>
          <th scope="col">${t.kind}</th>
          <th scope="col" class="num">${t.amount}</th>
          <th scope="col">${t.file}</th>
          <th scope="col">${t.entry}</th>
          <th scope="col">${t.message}</th>
          <th scope="col">${t.status}</th>
          ${opts.actions ? html`<th scope="col">${t.resolution}</th>` : ''}
        </tr>
      </thead>
      <tbody>
        ${rows.map(
          (x) =>
            html`<tr data-exception="${x.id}">
              <td>${x.kind}</td>
              <td class="num">${amount(view, x)}</td>
              <td><a href="${financeHref(view, `/bank-files/${x.bank_file_id}`)}">${x.file_name}</a></td>
              <td>
                ${x.entry_index !== null ? html`#${x.entry_index}${x.detail_index ? html`.${x.detail_index}` : ''}` : '—'}
                ${x.reference ? html`<br /><small>${x.reference}</small>` : ''}
              </td>
              <td>${x.message}</td>
              <td>${x.status}${resolution(view, x)}</td>
              ${opts.actions ? html`<td>${x.status === 'open' ? actions(view, x) : ''}</td>` : ''}
            </tr>`,
        )}
      </tbody>
    </table>`,
  );
}
