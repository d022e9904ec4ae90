import { randomUUID } from 'node:crypto';
import { Router, type Request, type Response } from 'express';
import { html } from '../../html/html';
import { newNonce, setPageSecurityHeaders } from '../../html/security-headers';
import { renderReceiptPage } from '../../services/receipts';
import type { SalePaymentInput } from '../../services/pos/sale-payments';
import { cartText, parseCart, pricedCart, withItem, withoutLine, type CartEntry } from './cart';
import { csrfInput, failure, isk, kronur, sendTillPage, tillView, type PosContext } from './frame';
import { requireStaff } from './device-pages';
import type { TillCustomer } from '../../services/pos/till-customers';
import { t } from './messages';

const ID = /^[a-z]+_[0-9A-Za-z]{1,64}$/;
const when = (unix: number) => new Date(unix * 1000).toISOString().slice(11, 16);

/**
 * Selling (decision 0129): the product grid with variants, the cart, payment by cash (change due), by
 * card on the register's paired terminal, or split; the sale's page with its refund form, and its
 * 80 mm receipt from the one receipt service. Every step is the till service's own operation.
 */
export function sellPages(ctx: PosContext): Router {
  const router = Router();
  router.use(['/pos/sell', '/pos/sales'], requireStaff);

  async function sellPage(
    req: Request,
    res: Response,
    cart: CartEntry[],
    opts: { status?: number; error?: string; customer?: unknown } = {},
  ) {
    const view = tillView(res);
    const l = view.locale;
    if (!(await ctx.pos.till.currentShift(view.scope, view.actor, view.registerId).catch(() => null)))
      return res.redirect(303, '/pos/shift');
    const items = await ctx.pos.catalog.items(view.scope);
    // The business buyer rides in the address beside the cart (decision 0235); one that is not (or
    // no longer) a business of this merchant is dropped, so the sale is never refused for it.
    const customerId = opts.customer ?? req.query.customer;
    const customer: TillCustomer | null =
      typeof customerId === 'string' && ID.test(customerId)
        ? await ctx.pos.customers.business(view.scope, customerId)
        : null;
    const query = typeof req.query.q === 'string' ? req.query.q.slice(0, 100) : '';
    const matches =
      !customer && query.trim() !== '' ? await ctx.pos.customers.search(view.scope, query) : null;
    const { lines, total } = pricedCart(cart, items);
    const done =
      typeof req.query.sale === 'string' && ID.test(req.query.sale) && cart.length === 0
        ? await ctx.pos.till.retrieveSale(view.scope, view.actor, req.query.sale).catch((err: unknown) => {
            failure(err);
            return null;
          })
        : null;
    const invoiceNumber = done?.invoice
      ? await ctx.pos.customers.invoiceNumber(view.scope, done.invoice)
      : null;
    const banner = done
      ? html`<section class="notice ok" role="status" aria-labelledby="done-h">
          <h2 id="done-h">${t(l, 'saleTitle', { number: done.number })}</h2>
          ${
            invoiceNumber
              ? html`<p data-testid="sale-invoice">${t(l, 'invoiceNumber', { number: invoiceNumber })}</p>`
              : ''
          }
          <p>${t(l, 'total')}: <span data-testid="sale-total">${isk(view, done.total)}</span></p>
          ${
            done.change_due > 0
              ? html`<p class="big" data-testid="change-due">
                  ${t(l, 'changeDue', { amount: isk(view, done.change_due) })}
                </p>`
              : ''
          }
          <p>
            <a href="/pos/sales/${done.id}" data-testid="sale-link"
              >${t(l, 'saleTitle', { number: done.number })}</a
            >
            · <a href="/pos/sales/${done.id}/receipt">${t(l, 'printReceipt')}</a>
          </p>
        </section>`
      : '';
    const href = (c: CartEntry[], buyer: string | null = customer?.id ?? null) => {
      const q = new URLSearchParams();
      if (c.length) q.set('cart', cartText(c));
      if (buyer) q.set('customer', buyer);
      const text = q.toString();
      return text ? `/pos/sell?${text}` : '/pos/sell';
    };
    const customerName = (c: TillCustomer) => c.name ?? c.kennitala ?? c.id;
    const buyerSection = html`<section aria-labelledby="buyer-h" class="buyer">
      <h2 id="buyer-h">${t(l, 'buyer')}</h2>
      ${
        customer
          ? html`<p data-testid="sale-customer">
              ${t(l, 'invoiceTo')} <strong>${customerName(customer)}</strong>
              ${customer.kennitala ? html`<span>(${customer.kennitala})</span>` : ''}
              <a
                href="${href(cart, null)}"
                aria-label="${t(l, 'removeCustomerOf', { name: customerName(customer) })}"
                >${t(l, 'removeCustomer')}</a
              >
            </p>`
          : html`<p>${t(l, 'buyerHelp')}</p>
              <form method="get" action="/pos/sell" class="tillform" role="search">
                ${cart.length ? html`<input type="hidden" name="cart" value="${cartText(cart)}" />` : ''}
                <label for="customer_q">${t(l, 'customerSearch')}</label>
                <input id="customer_q" name="q" value="${query}" autocomplete="off" maxlength="100" />
                <button type="submit">${t(l, 'find')}</button>
              </form>
              ${
                matches === null
                  ? ''
                  : matches.length === 0
                    ? html`<p>${t(l, 'noCustomers')}</p>`
                    : html`<ul class="matches">
                        ${matches.map(
                          (c) =>
                            html`<li>
                              <a href="${href(cart, c.id)}"
                                >${customerName(c)}${c.kennitala ? html` <span>${c.kennitala}</span>` : ''}</a
                              >
                            </li>`,
                        )}
                      </ul>`
              }`
      }
    </section>`;
    const grid =
      items.length === 0
        ? html`<p>${t(l, 'noProducts')}</p>`
        : html`<ul class="grid">
            ${items.map(
              (i) =>
                html`<li>
                  <a href="${href(withItem(cart, i))}">${i.name} <span>${isk(view, i.unit_amount)}</span></a>
                </li>`,
            )}
          </ul>`;
    const cartTable =
      lines.length === 0
        ? html`<p>${t(l, 'emptyCart')}</p>`
        : html`<table>
              <caption>
                ${t(l, 'cart')}
              </caption>
              <thead>
                <tr>
                  <th scope="col">${t(l, 'item')}</th>
                  <th scope="col" class="n">${t(l, 'qty')}</th>
                  <th scope="col" class="n">${t(l, 'amount')}</th>
                  <td></td>
                </tr>
              </thead>
              <tbody>
                ${lines.map(
                  (line, i) =>
                    html`<tr>
                      <td>${line.item.name}</td>
                      <td class="n">${line.quantity}</td>
                      <td class="n">${isk(view, line.amount)}</td>
                      <td>
                        <a
                          href="${href(withoutLine(cart, i))}"
                          aria-label="${t(l, 'remove', { name: line.item.name })}"
                          >✕</a
                        >
                      </td>
                    </tr>`,
                )}
              </tbody>
            </table>
            <p class="big" data-testid="cart-total">${t(l, 'total')}: ${isk(view, total)}</p>
            <form method="post" action="/pos/sales" class="pay">
              ${csrfInput(view)}
              <input type="hidden" name="cart" value="${cartText(cart)}" />
              ${customer ? html`<input type="hidden" name="customer" value="${customer.id}" />` : ''}
              <label for="tendered">${t(l, 'tendered')}</label>
              <input id="tendered" name="tendered" inputmode="numeric" autocomplete="off" />
              <label for="card_amount">${t(l, 'cardAmount')}</label>
              <input id="card_amount" name="card_amount" inputmode="numeric" autocomplete="off" />
              <fieldset>
                <legend>${t(l, 'pay')}</legend>
                <button type="submit" name="pay" value="cash">${t(l, 'payCash')}</button>
                <button type="submit" name="pay" value="card">${t(l, 'payCard')}</button>
                <button type="submit" name="pay" value="split" class="secondary">${t(l, 'paySplit')}</button>
              </fieldset>
            </form>
            <p><a href="${href([])}">${t(l, 'clear')}</a></p>`;
    sendTillPage(
      req,
      res,
      html`${banner}
        <div class="sell">
          <section aria-labelledby="products-h">
            <h2 id="products-h">${t(l, 'products')}</h2>
            ${grid}
          </section>
          <div>
            ${buyerSection}
            <section aria-labelledby="cart-h">
              <h2 id="cart-h">${t(l, 'cart')}</h2>
              ${cartTable}
            </section>
          </div>
        </div>`,
      { title: t(l, 'sell'), ...opts },
    );
  }

  router.get('/pos/sell', (req, res) => sellPage(req, res, parseCart(req.query.cart)));

  router.post('/pos/sales', async (req, res) => {
    const view = tillView(res);
    const l = view.locale;
    const body = req.body as Record<string, unknown>;
    const cart = parseCart(body.cart);
    const customer = typeof body.customer === 'string' && ID.test(body.customer) ? body.customer : undefined;
    const again = (status: number, error: string) => sellPage(req, res, cart, { status, error, customer });
    const { total } = pricedCart(cart, await ctx.pos.catalog.items(view.scope));
    const tenderedText = typeof body.tendered === 'string' ? body.tendered.trim() : '';
    const tendered = tenderedText === '' ? undefined : kronur(tenderedText);
    if (tendered === null) return again(400, t(l, 'amountInvalid'));
    let payments: SalePaymentInput[];
    if (body.pay === 'card') payments = [{ method: 'card', amount: total }];
    else if (body.pay === 'split') {
      const card = kronur(body.card_amount);
      if (card === null || card < 1 || card >= total) return again(400, t(l, 'cardAmountMissing'));
      payments = [
        { method: 'cash', amount: total - card, ...(tendered !== undefined && { tendered }) },
        { method: 'card', amount: card },
      ];
    } else payments = [{ method: 'cash', amount: total, ...(tendered !== undefined && { tendered }) }];
    try {
      const sale = await ctx.pos.till.createSale(view.scope, view.actor, view.registerId, {
        lines: cart.map((e) => ({
          product: e.product,
          ...(e.variant && { variant: e.variant }),
          quantity: e.quantity,
        })),
        payments,
        ...(customer && { customer }),
      });
      // Back to the grid for the next buyer, with this sale's total and change due on top.
      res.redirect(303, `/pos/sell?sale=${sale.id}`);
    } catch (err) {
      const f = failure(err);
      await again(f.status, f.message);
    }
  });

  router.get('/pos/sales', async (req, res) => {
    const view = tillView(res);
    const l = view.locale;
    const page = await ctx.pos.till.listSales(view.scope, view.actor, { limit: 50 });
    const rows = page.data.filter((s) => s.z_report === null);
    sendTillPage(
      req,
      res,
      rows.length === 0
        ? html`<p>${t(l, 'noSales')}</p>`
        : html`<table>
            <caption>
              ${t(l, 'salesTitle')}
            </caption>
            <thead>
              <tr>
                <th scope="col">${t(l, 'number')}</th>
                <th scope="col">${t(l, 'time')}</th>
                <th scope="col">${t(l, 'paidWith')}</th>
                <th scope="col" class="n">${t(l, 'total')}</th>
              </tr>
            </thead>
            <tbody>
              ${rows.map(
                (s) =>
                  html`<tr>
                    <td><a href="/pos/sales/${s.id}">${s.number}</a></td>
                    <td>${when(s.created_at)}</td>
                    <td>${s.payments.map((p) => t(l, p.method)).join(' + ')}</td>
                    <td class="n">${isk(view, s.total)}</td>
                  </tr>`,
              )}
            </tbody>
          </table>`,
      { title: t(l, 'sales') },
    );
  });

  async function salePage(
    req: Request,
    res: Response,
    opts: { status?: number; error?: string; ok?: string } = {},
  ) {
    const view = tillView(res);
    const l = view.locale;
    const id = String(req.params.id);
    if (!ID.test(id)) return res.redirect(303, '/pos/sales');
    let sale;
    try {
      sale = await ctx.pos.till.retrieveSale(view.scope, view.actor, id);
    } catch (err) {
      const f = failure(err);
      return sendTillPage(req, res, html``, { title: t(l, 'sales'), status: f.status, error: f.message });
    }
    const left = sale.total - sale.amount_refunded;
    const invoiceNumber = sale.invoice
      ? await ctx.pos.customers.invoiceNumber(view.scope, sale.invoice)
      : null;
    const manager = view.staff?.role === 'manager';
    const refundForm =
      left === 0
        ? ''
        : !manager
          ? html`<p>${t(l, 'managerOnly')}</p>`
          : html`<form method="post" action="/pos/sales/${sale.id}/refunds" class="tillform">
              ${csrfInput(view)}
              <input type="hidden" name="key" value="${randomUUID()}" />
              <fieldset>
                <legend>${t(l, 'refundMethod')}</legend>
                <label><input type="radio" name="method" value="cash" checked /> ${t(l, 'cash')}</label>
                ${
                  sale.payments.some((p) => p.method === 'card')
                    ? html`<label><input type="radio" name="method" value="card" /> ${t(l, 'card')}</label>`
                    : ''
                }
              </fieldset>
              <label for="refund_amount">${t(l, 'refundAmount')}</label>
              <input id="refund_amount" name="amount" inputmode="numeric" autocomplete="off" />
              <p><button type="submit" class="danger">${t(l, 'refund')}</button></p>
            </form>`;
    sendTillPage(
      req,
      res,
      html`${
          sale.change_due > 0
            ? html`<p class="big" data-testid="change-due">
                ${t(l, 'changeDue', { amount: isk(view, sale.change_due) })}
              </p>`
            : ''
        }
        ${
          invoiceNumber
            ? html`<p data-testid="sale-invoice">${t(l, 'invoiceNumber', { number: invoiceNumber })}</p>`
            : ''
        }
        <table>
          <caption>
            ${t(l, 'saleTitle', { number: sale.number })}
          </caption>
          <tbody>
            ${sale.lines.map(
              (x) =>
                html`<tr>
                  <td>${x.quantity} × ${x.description}</td>
                  <td>${t(l, 'vatRate', { rate: x.vat_rate })}</td>
                  <td class="n">${isk(view, x.amount)}</td>
                </tr>`,
            )}
            <tr>
              <th scope="row" colspan="2">${t(l, 'total')}</th>
              <td class="n" data-testid="sale-total">${isk(view, sale.total)}</td>
            </tr>
            ${sale.payments.map(
              (p) =>
                html`<tr>
                  <th scope="row" colspan="2">${t(l, 'paidWith')}: ${t(l, p.method)}</th>
                  <td class="n">${isk(view, p.amount)}</td>
                </tr>`,
            )}
            ${sale.vat.map(
              (v) =>
                html`<tr>
                  <td colspan="2">
                    ${t(l, 'vat')} ${t(l, 'vatRateOf', { rate: v.rate, category: v.category })}
                  </td>
                  <td class="n">${isk(view, v.vat)}</td>
                </tr>`,
            )}
          </tbody>
        </table>
        ${
          sale.amount_refunded > 0
            ? html`<p data-testid="refunded">
                ${t(l, 'refunded', { amount: isk(view, sale.amount_refunded) })}
              </p>`
            : ''
        }
        <form method="post" action="/pos/sales/${sale.id}/receipt-email" class="tillform">
          ${csrfInput(view)}
          <label for="receipt_email">${t(l, 'emailTo')}</label>
          <input id="receipt_email" name="email" type="email" autocomplete="off" maxlength="254" required />
          <p><button type="submit">${t(l, 'sendReceipt')}</button></p>
        </form>
        <p>
          <a href="/pos/sales/${sale.id}/receipt">${t(l, 'printReceipt')}</a> ·
          <a href="/pos/sell">${t(l, 'newSale')}</a>
        </p>
        ${refundForm}`,
      { title: t(l, 'saleTitle', { number: sale.number }), ...opts },
    );
  }
  router.get('/pos/sales/:id', (req, res) => salePage(req, res));

  router.post('/pos/sales/:id/refunds', async (req, res) => {
    const view = tillView(res);
    const l = view.locale;
    const body = req.body as Record<string, unknown>;
    const amountText = typeof body.amount === 'string' ? body.amount.trim() : '';
    const amount = amountText === '' ? undefined : kronur(amountText);
    if (amount === null) return salePage(req, res, { status: 400, error: t(l, 'amountInvalid') });
    try {
      const refund = await ctx.pos.till.refundSale(
        view.scope,
        view.actor,
        req.params.id,
        { method: body.method === 'card' ? 'card' : 'cash', ...(amount !== undefined && { amount }) },
        typeof body.key === 'string' && /^[0-9a-f-]{36}$/.test(body.key) ? `pos-app:${body.key}` : undefined,
      );
      await salePage(req, res, { ok: t(l, 'refundDone', { amount: isk(view, refund.amount) }) });
    } catch (err) {
      const f = failure(err);
      await salePage(req, res, { status: f.status, error: f.message });
    }
  });

  router.post('/pos/sales/:id/receipt-email', async (req, res) => {
    const view = tillView(res);
    const to = (req.body as Record<string, unknown>).email;
    try {
      const sent = await ctx.pos.receipts.email(
        view.scope,
        view.actor,
        req.params.id,
        typeof to === 'string' ? to : '',
        view.locale,
      );
      await salePage(req, res, { ok: t(view.locale, 'receiptSent', { email: sent.sent_to }) });
    } catch (err) {
      const f = failure(err);
      await salePage(req, res, { status: f.status, error: f.message });
    }
  });

  /** The 80 mm printable receipt, VAT per rate, from the receipt service (decision 0130). */
  router.get('/pos/sales/:id/receipt', async (req, res) => {
    const view = tillView(res);
    const input = await ctx.pos.receipts.input(view.scope, view.actor, req.params.id, view.locale);
    const nonce = newNonce();
    setPageSecurityHeaders(res, { nonce });
    res.type('html').send(renderReceiptPage(input, { nonce }).value);
  });

  return router;
}
