import { Router, type Request, type Response } from 'express';
import { formatIsk } from '../../domain/isk';
import { html } from '../../html/html';
import { CLAIM_STATUSES } from '../../services/claims/claim-object';
import { defineMessages } from '../messages';
import type { WebContext } from './context';
import {
  afterCursor,
  facts,
  failure,
  loadOrSendFailure,
  merchantView,
  nextPage,
  requireAction,
  sendMerchantPage,
  table,
  timeline,
  when,
} from './frame';
import { statusBadge } from './status-badge';
import { readClaimFilter, type ClaimFilterError } from '../../services/dashboard/payment-list';

const t = defineMessages({
  en: {
    title: 'Kröfur',
    filters: 'Filter kröfur',
    status: 'Status',
    any: 'Any',
    apply: 'Apply',
    dueFrom: 'Due from (date)',
    dueTo: 'Due to (date)',
    customerId: 'Customer id',
    fixFilters: 'Some filters are not valid; correct them below.',
    error_choice: 'Choose one of the options.',
    error_date: 'Write a date as yyyy-mm-dd.',
    error_reversed: 'This must not come before the first one.',
    error_id: 'Write a customer id (cus_…).',
    error_kennitala: 'Write a kennitala of ten digits.',
    krafa: 'Krafa',
    payer: 'Payer kennitala',
    amount: 'Amount',
    paid: 'Paid',
    due: 'Due date',
    finalDue: 'Final due date',
    customer: 'Customer',
    description: 'Description',
    created: 'Created',
    none: 'No kröfur match.',
    older: 'Older kröfur',
    detail: 'Krafa {id}',
    bankError: 'Bank error',
    cancel: 'Cancel this krafa',
    cancelled: 'The krafa is cancelled.',
    timeline: 'Timeline',
    noEvents: 'No events yet.',
    overdue: 'Overdue kröfur',
    overdueLink: 'Overdue kröfur and their next steps',
    state: 'Collection',
    nextStep: 'Next step',
    nextOn: 'When',
    owed: 'Owed today',
    noOverdue: 'No kröfur are overdue.',
    state_overdue: 'overdue',
    state_warning: 'warned',
    state_interim: 'interim collection',
    state_handed_off: 'handed off',
    step_warning: 'collection warning',
    step_letter: 'interim letter',
    step_reminder: 'reminder',
    step_call: 'call',
    step_hand_off: 'hand-off to collector',
    step_close: 'close',
    step_overdue: 'overdue',
  },
  is: {
    title: 'Kröfur',
    filters: 'Sía kröfur',
    status: 'Staða',
    any: 'Allar',
    apply: 'Sía',
    dueFrom: 'Gjalddagi frá (dagsetning)',
    dueTo: 'Gjalddagi til (dagsetning)',
    customerId: 'Auðkenni viðskiptavinar',
    fixFilters: 'Sumar síur eru ógildar; lagaðu þær hér fyrir neðan.',
    error_choice: 'Veldu einn af kostunum.',
    error_date: 'Skrifaðu dagsetningu sem áááá-mm-dd.',
    error_reversed: 'Þetta má ekki vera á undan hinu fyrra.',
    error_id: 'Skrifaðu auðkenni viðskiptavinar (cus_…).',
    error_kennitala: 'Skrifaðu kennitölu, tíu tölustafi.',
    krafa: 'Krafa',
    payer: 'Kennitala greiðanda',
    amount: 'Upphæð',
    paid: 'Greitt',
    due: 'Gjalddagi',
    finalDue: 'Eindagi',
    customer: 'Viðskiptavinur',
    description: 'Lýsing',
    created: 'Stofnuð',
    none: 'Engar kröfur passa.',
    older: 'Eldri kröfur',
    detail: 'Krafa {id}',
    bankError: 'Villa frá banka',
    cancel: 'Fella niður þessa kröfu',
    cancelled: 'Krafan er felld niður.',
    timeline: 'Tímalína',
    noEvents: 'Engir atburðir enn.',
    overdue: 'Kröfur í vanskilum',
    overdueLink: 'Kröfur í vanskilum og næstu skref',
    state: 'Innheimta',
    nextStep: 'Næsta skref',
    nextOn: 'Hvenær',
    owed: 'Staða í dag',
    noOverdue: 'Engar kröfur eru í vanskilum.',
    state_overdue: 'í vanskilum',
    state_warning: 'viðvörun send',
    state_interim: 'milliinnheimta',
    state_handed_off: 'hjá innheimtuaðila',
    step_warning: 'innheimtuviðvörun',
    step_letter: 'milliinnheimtubréf',
    step_reminder: 'ítrekun',
    step_call: 'símtal',
    step_hand_off: 'send innheimtuaðila',
    step_close: 'lokun',
    step_overdue: 'vanskil',
  },
});

/** `/dashboard/claims`: the merchant's kröfur, one krafa with its timeline, and cancelling an unpaid one. */
export function claimPages(ctx: WebContext): Router {
  const router = Router();
  const { data } = ctx.services;

  router.get('/dashboard/claims', async (req, res) => {
    const view = merchantView(req, res);
    const l = view.locale;
    const read = readClaimFilter(req.query, CLAIM_STATUSES);
    const errorOf = (param: ClaimFilterError['param']) => read.errors.find((e) => e.param === param);
    const invalid = (param: ClaimFilterError['param']) => {
      const error = errorOf(param);
      return error
        ? {
            attrs: html`aria-invalid="true" aria-describedby="f-${param}-error"`,
            note: html`<p class="field-error" id="f-${param}-error" data-error="${param}">
              ${t(l, `error_${error.code}`)}
            </p>`,
          }
        : { attrs: '', note: '' };
    };
    const field = (param: 'due_from' | 'due_to' | 'customer' | 'payer', label: string, type: string) => {
      const e = invalid(param);
      return html`<div class="filter-field">
        <label for="f-${param}">${label}</label>
        <input
          id="f-${param}"
          name="${param}"
          type="${type}"
          value="${read.values[param]}"
          maxlength="100"
          ${e.attrs}
        />
        ${e.note}
      </div>`;
    };
    const statusError = invalid('status');
    const form = html`<form
      method="get"
      action="/dashboard/claims"
      role="search"
      aria-label="${t(l, 'filters')}"
      class="filters"
    >
      <div class="filter-field">
        <label for="f-status">${t(l, 'status')}</label>
        <select id="f-status" name="status" ${statusError.attrs}>
          <option value="">${t(l, 'any')}</option>
          ${CLAIM_STATUSES.map(
            (s) => html`<option value="${s}" ${s === read.values.status ? 'selected' : ''}>${s}</option>`,
          )}
        </select>
        ${statusError.note}
      </div>
      ${field('due_from', t(l, 'dueFrom'), 'date')} ${field('due_to', t(l, 'dueTo'), 'date')}
      ${field('customer', t(l, 'customerId'), 'text')} ${field('payer', t(l, 'payer'), 'text')}
      <p><button type="submit">${t(l, 'apply')}</button></p>
    </form>`;
    if (read.errors.length > 0) {
      sendMerchantPage(res, view, form, { title: t(l, 'title'), status: 400, error: t(l, 'fixFilters') });
      return;
    }
    const after = afterCursor(req);
    const page = await loadOrSendFailure(res, view, t(l, 'title'), () =>
      data.claims.list(view.scope, read.filters, {
        limit: 25,
        ...(after && { startingAfter: after }),
      }),
    );
    if (!page) return;
    const last = page.data[page.data.length - 1];
    const keep = new URLSearchParams(Object.entries(read.values).filter(([, v]) => v !== '')).toString();
    const body = html`<p><a href="/dashboard/claims/overdue">${t(l, 'overdueLink')}</a></p>
      ${form}
      ${table(
        t(l, 'title'),
        [t(l, 'krafa'), t(l, 'payer'), t(l, 'amount'), t(l, 'paid'), t(l, 'status'), t(l, 'due')],
        page.data.map(
          (k) =>
            html`<tr data-claim="${k.id}">
              <td><a href="/dashboard/claims/${k.id}">${k.description ?? k.id}</a></td>
              <td>${k.payer_kennitala}</td>
              <td>${formatIsk(k.amount, view.locale)}</td>
              <td>${formatIsk(k.amount_paid, view.locale)}</td>
              <td>${statusBadge(k.status, l)}</td>
              <td>${k.due_date}</td>
            </tr>`,
        ),
        t(l, 'none'),
      )}
      ${nextPage(
        page.hasMore && last ? `/dashboard/claims?${keep ? `${keep}&` : ''}after=${last.id}` : null,
        t(l, 'older'),
      )}`;
    sendMerchantPage(res, view, body, { title: t(l, 'title') });
  });

  async function detail(req: Request, res: Response, opts: { ok?: string; error?: string; status?: number }) {
    const view = merchantView(req, res);
    const l = view.locale;
    const k = await loadOrSendFailure(res, view, t(l, 'title'), () =>
      data.claims.retrieve(view.scope, String(req.params.id)),
    );
    if (!k) return;
    const events = await data.events.list(view.scope, { limit: 100, objectId: k.id });
    const cancellable = ['pending', 'issued', 'partially_paid'].includes(k.status);
    const body = html`${facts([
        [t(l, 'amount'), formatIsk(k.amount, view.locale)],
        [t(l, 'paid'), formatIsk(k.amount_paid, view.locale)],
        [t(l, 'status'), statusBadge(k.status, l, 'claim-status')],
        [t(l, 'payer'), k.payer_kennitala],
        [
          t(l, 'customer'),
          k.customer ? html`<a href="/dashboard/customers/${k.customer}">${k.customer}</a>` : '—',
        ],
        [t(l, 'due'), k.due_date],
        [t(l, 'finalDue'), k.final_due_date],
        [t(l, 'description'), k.description ?? '—'],
        [t(l, 'bankError'), k.bank_error?.message ?? '—'],
        [t(l, 'created'), when(k.created_at, l)],
      ])}
      ${
        cancellable && view.can('write_billing')
          ? html`<form method="post" action="/dashboard/claims/${k.id}/cancel">
              ${view.csrf}
              <button type="submit" class="danger">${t(l, 'cancel')}</button>
            </form>`
          : ''
      }
      <h2>${t(l, 'timeline')}</h2>
      ${timeline(events.data, t(l, 'noEvents'), l)}`;
    sendMerchantPage(res, view, body, {
      title: t(l, 'detail', { id: k.id }),
      status: opts.status ?? 200,
      ok: opts.ok,
      error: opts.error,
    });
  }

  // The overdue kröfur with what happens next and when (decision 0246); before `:id`, which it would match.
  router.get('/dashboard/claims/overdue', async (req, res) => {
    const view = merchantView(req, res);
    const l = view.locale;
    const rows = await loadOrSendFailure(res, view, t(l, 'overdue'), () =>
      ctx.services.collection.overdue(view.scope),
    );
    if (!rows) return;
    const body = table(
      t(l, 'overdue'),
      [t(l, 'krafa'), t(l, 'payer'), t(l, 'state'), t(l, 'owed'), t(l, 'nextStep'), t(l, 'nextOn')],
      rows.map(
        (c) =>
          html`<tr data-claim="${c.id}">
            <td><a href="/dashboard/claims/${c.id}">${String(c.claim_number)}</a></td>
            <td>${c.payer_kennitala}</td>
            <td>${t(l, `state_${c.state}` as 'state_overdue')}</td>
            <td>${formatIsk(c.amount_owed.total, view.locale)}</td>
            <td>${c.next_step ? t(l, `step_${c.next_step.kind}` as 'step_warning') : '—'}</td>
            <td>${c.next_step?.on ?? '—'}</td>
          </tr>`,
      ),
      t(l, 'noOverdue'),
    );
    sendMerchantPage(res, view, body, { title: t(l, 'overdue') });
  });

  router.get('/dashboard/claims/:id', (req, res) => detail(req, res, {}));

  router.post('/dashboard/claims/:id/cancel', requireAction('write_billing'), async (req, res) => {
    const view = merchantView(req, res);
    try {
      await data.claims.cancel(view.scope, String(req.params.id));
      await detail(req, res, { ok: t(view.locale, 'cancelled') });
    } catch (err) {
      const f = failure(err);
      await detail(req, res, { error: f.message, status: f.status });
    }
  });

  return router;
}
