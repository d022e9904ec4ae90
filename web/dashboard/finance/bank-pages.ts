import { tableFrame } from '../../layout';
import { formatLocalTime } from '../../../domain/local-time';
import { formatIsk } from '../../../domain/isk';
import { Router, type Request, type Response } from 'express';
import { ApiError } from '../../../domain/errors';
import { html } from '../../../html/html';
import { field, type WebContext } from '../context';
import {
  financeHref,
  financeView,
  operatorActor,
  sendFinanceNotFound,
  sendFinancePage,
  type FinanceView,
} from './frame';

import { exceptionsTable } from './exception-table';

/**
 * The bank half of the finance dashboard: files received, a file's parsed entries, the exceptions
 * queue with its two actions, and the audit log. Mounted by `financePages`, behind its operator and
 * CSRF checks.
 */

const ENTRIES_PER_PAGE = 200;

export function financeBankPages(ctx: WebContext): Router {
  const router = Router();
  const { financeBank, bankExceptions: exceptions } = ctx.services;

  router.get('/dashboard/finance/bank-files', async (req, res) => {
    const view = financeView(req, res, ctx);
    const { t } = view;
    const files = await financeBank.files(view.livemode, 100);
    const body = files.length
      ? tableFrame(
          t.bankFiles,
          html`<table class="bank-files">
            <thead>
              <tr>
                <th scope="col">${t.name}</th>
                <th scope="col">${t.received}</th>
                <th scope="col">${t.type}</th>
                <th scope="col">${t.status}</th>
                <th scope="col" class="num">${t.entries}</th>
                <th scope="col" class="num">${t.exceptions}</th>
              </tr>
            </thead>
            <tbody>
              ${files.map(
                (f) =>
                  html`<tr data-file="${f.id}">
                    <td><a href="${financeHref(view, `/bank-files/${f.id}`)}">${f.name}</a></td>
                    <td>${formatLocalTime(f.received_at, view.lang)}</td>
                    <td>${f.message_type ?? '—'}</td>
                    <td>
                      ${t.fileStatus[f.status] ?? f.status}${
                        f.quarantine_reason ? html`<br /><small>${f.quarantine_reason}</small>` : ''
                      }
                    </td>
                    <td class="num">${f.entry_count}</td>
                    <td class="num">${f.open_exceptions}</td>
                  </tr>`,
              )}
            </tbody>
          </table>`,
        )
      : html`<p>${t.noFiles}</p>`;
    sendFinancePage(res, view, body, { title: t.bankFiles, section: '/bank-files', here: '/bank-files' });
  });

  router.get('/dashboard/finance/bank-files/:id', async (req, res) => {
    const view = financeView(req, res, ctx);
    const { t } = view;
    const after =
      typeof req.query.after === 'string' && /^\d{1,15}$/.test(req.query.after)
        ? Number(req.query.after)
        : undefined;
    const found = await financeBank.file(view.livemode, String(req.params.id), {
      after,
      entriesPerPage: ENTRIES_PER_PAGE,
    });
    if (!found) return sendFinanceNotFound(res, view, '/bank-files');
    const { file, entries } = found;
    const last = entries[entries.length - 1];
    const body = html`<dl class="totals">
        <dt>${t.type}</dt>
        <dd>${file.message_type ?? '—'}</dd>
        <dt>${t.received}</dt>
        <dd>${formatLocalTime(file.received_at, view.lang)}</dd>
        <dt>${t.status}</dt>
        <dd>
          ${t.fileStatus[file.status] ?? file.status}${file.quarantine_reason ? html`: ${file.quarantine_reason}` : ''}
        </dd>
        <dt>${t.entries}</dt>
        <dd>${file.entry_count}</dd>
      </dl>
      ${
        entries.length
          ? tableFrame(
              t.entries,
              html`<table class="entries">
                <thead>
                  <tr>
                    <th scope="col">${t.entry}</th>
                    <th scope="col">${t.status}</th>
                    <th scope="col">${t.direction}</th>
                    <th scope="col" class="num">${t.amount}</th>
                    <th scope="col">${t.date}</th>
                    <th scope="col">${t.references}</th>
                    <th scope="col">${t.match}</th>
                  </tr>
                </thead>
                <tbody>
                  ${entries.map(
                    (e) =>
                      html`<tr data-entry="${e.id}">
                        <td>${e.statement_id} #${e.entry_index}</td>
                        <td>${e.status}${e.reversal ? ' (RvslInd)' : ''}</td>
                        <td>${e.credit ? t.credit : t.debit}</td>
                        <td class="num">
                          ${e.currency === 'ISK' ? formatIsk(e.amount, view.lang) : `${e.currency} ${e.amount}`}
                        </td>
                        <td>${e.booking_date ?? '—'}</td>
                        <td>
                          ${[
                            ['AcctSvcrRef', e.acct_svcr_ref],
                            ['NtryRef', e.entry_ref],
                            ['EndToEndId', e.end_to_end_id],
                            ['Ref', e.reference],
                          ]
                            .filter(([, v]) => v)
                            .map(([k, v]) => html`<small>${k}: ${v}</small><br />`)}
                          ${e.detail_count ? html`<small>TxDtls: ${e.detail_count}</small>` : ''}
                        </td>
                        <td>${e.match_status}${e.matched_kind ? html` (${e.matched_kind})` : ''}</td>
                      </tr>`,
                  )}
                </tbody>
              </table>`,
            )
          : html`<p>${t.noEntries}</p>`
      }
      ${
        last && entries.length === ENTRIES_PER_PAGE
          ? html`<p>
              <a href="${financeHref(view, `/bank-files/${file.id}`, { after: String(last.id) })}"
                >${t.moreEntries}</a
              >
            </p>`
          : ''
      }`;
    sendFinancePage(res, view, body, {
      title: t.bankFile(file.name),
      section: '/bank-files',
      here: `/bank-files/${file.id}`,
    });
  });

  async function queuePage(
    res: Response,
    view: FinanceView,
    opts: { error?: string | undefined; ok?: string | undefined; status?: number } = {},
  ): Promise<void> {
    const { t } = view;
    const { open, closed } = await financeBank.exceptionQueue(view.livemode, { open: 200, closed: 50 });
    const body = html`<h2>${t.openExceptions} (${open.length})</h2>
      ${open.length ? exceptionsTable(view, open, { actions: true }) : html`<p>${t.noExceptions}</p>`}
      <h2>${t.resolvedExceptions}</h2>
      ${closed.length ? exceptionsTable(view, closed, { actions: false }) : html`<p>${t.noExceptions}</p>`}`;
    sendFinancePage(res, view, body, {
      title: t.exceptions,
      section: '/exceptions',
      here: '/exceptions',
      error: opts.error,
      ok: opts.ok,
      ...(opts.status !== undefined && { status: opts.status }),
    });
  }

  router.get('/dashboard/finance/exceptions', async (req, res) => {
    const view = financeView(req, res, ctx);
    const done = req.query.done;
    await queuePage(res, view, {
      ok: done === 'resolved' ? view.t.resolvedOk : done === 'handled' ? view.t.handledOk : undefined,
    });
  });

  async function act(req: Request, res: Response, action: 'resolved' | 'handled'): Promise<void> {
    const view = financeView(req, res, ctx);
    const id = String(req.params.id);
    const actor = operatorActor(view);
    try {
      if (action === 'resolved')
        await exceptions.resolve(
          view.livemode,
          id,
          { paymentIntentId: field(req, 'payment_intent'), note: field(req, 'note') },
          actor,
        );
      else await exceptions.markHandled(view.livemode, id, { note: field(req, 'note') }, actor);
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      return queuePage(res, view, { error: `${view.t.refused}: ${err.message}`, status: err.status });
    }
    // Post/redirect/get: reloading the result page does not submit the form again.
    res.redirect(303, financeHref(view, '/exceptions', { done: action }));
  }

  router.post('/dashboard/finance/exceptions/:id/resolve', (req, res) => act(req, res, 'resolved'));
  router.post('/dashboard/finance/exceptions/:id/handle', (req, res) => act(req, res, 'handled'));

  router.get('/dashboard/finance/audit', async (req, res) => {
    const view = financeView(req, res, ctx);
    const { t } = view;
    const rows = await financeBank.audit(view.livemode, 100);
    const body = rows.length
      ? tableFrame(
          t.auditLog,
          html`<table class="audit">
            <thead>
              <tr>
                <th scope="col">${t.time}</th>
                <th scope="col">${t.actor}</th>
                <th scope="col">${t.action}</th>
                <th scope="col">${t.object}</th>
              </tr>
            </thead>
            <tbody>
              ${rows.map(
                (a) =>
                  html`<tr data-audit="${a.id}">
                    <td>${formatLocalTime(a.created_at, view.lang)}</td>
                    <td>${a.actor_name} <small>(${a.actor_kind})</small></td>
                    <td>${a.action}</td>
                    <td>${a.object_type} ${a.object_id}</td>
                  </tr>`,
              )}
            </tbody>
          </table>`,
        )
      : html`<p>${t.noAudit}</p>`;
    sendFinancePage(res, view, body, { title: t.auditLog, section: '/audit', here: '/audit' });
  });

  return router;
}
