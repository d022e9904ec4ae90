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

const t = defineMessages({
  en: {
    title: 'Kröfur',
    filters: 'Filter kröfur',
    status: 'Status',
    any: 'Any',
    apply: 'Apply',
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
  },
  is: {
    title: 'Kröfur',
    filters: 'Sía kröfur',
    status: 'Staða',
    any: 'Allar',
    apply: 'Sía',
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
  },
});

/** `/dashboard/claims`: the merchant's kröfur, one krafa with its timeline, and cancelling an unpaid one. */
export function claimPages(ctx: WebContext): Router {
  const router = Router();
  const { data } = ctx.services;

  router.get('/dashboard/claims', async (req, res) => {
    const view = merchantView(req, res);
    const l = view.locale;
    const status = CLAIM_STATUSES.find((s) => s === req.query.status);
    const after = afterCursor(req);
    const page = await loadOrSendFailure(res, view, t(l, 'title'), () =>
      data.claims.list(
        view.scope,
        { ...(status && { status }) },
        {
          limit: 25,
          ...(after && { startingAfter: after }),
        },
      ),
    );
    if (!page) return;
    const last = page.data[page.data.length - 1];
    const body = html`<form method="get" action="/dashboard/claims" aria-label="${t(l, 'filters')}">
        <label for="status">${t(l, 'status')}</label>
        <select id="status" name="status">
          <option value="">${t(l, 'any')}</option>
          ${CLAIM_STATUSES.map((s) => html`<option value="${s}" ${s === status ? 'selected' : ''}>${s}</option>`)}
        </select>
        <button type="submit">${t(l, 'apply')}</button>
      </form>
      ${table(
        t(l, 'title'),
        [t(l, 'krafa'), t(l, 'payer'), t(l, 'amount'), t(l, 'paid'), t(l, 'status'), t(l, 'due')],
        page.data.map(
          (k) =>
            html`<tr>
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
        page.hasMore && last
          ? `/dashboard/claims?${status ? `status=${status}&` : ''}after=${last.id}`
          : null,
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
