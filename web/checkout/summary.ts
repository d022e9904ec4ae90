import { formatIsk } from '../../domain/isk';
import type { Locale } from '../../domain/locale';
import type { CheckoutSessionView } from './view';
import { allocate } from '../../domain/discount';
import { vatOf } from '../../domain/vat';
import { html, type SafeHtml } from '../../html/html';
import type { Strings } from './strings';

/** VAT included per rate, on each line's amount after its share of the discount. */
function vatByRate(s: CheckoutSessionView): Map<number, number> {
  const shares = allocate(
    s.discount_amount,
    s.items.map((l) => l.unit_amount * l.quantity),
  );
  const byRate = new Map<number, number>();
  s.items.forEach((l, i) => {
    const net = l.unit_amount * l.quantity - (shares[i] ?? 0);
    byRate.set(l.vat_rate, (byRate.get(l.vat_rate) ?? 0) + vatOf(net, l.vat_rate));
  });
  return byRate;
}

/** The order summary: lines, discount, total and the VAT it includes. */
export function summary(s: CheckoutSessionView, t: Strings, locale: Locale): SafeHtml {
  const money = (a: number) => formatIsk(a, locale, { negative: 'typographic' });
  const rows = s.items.map(
    (l) =>
      html`<tr data-testid="line-item">
        <td>
          ${l.description}
          <div class="vat">
            ${t.quantity} ${l.quantity} × ${money(l.unit_amount)} · ${t.vat} ${l.vat_rate}%
          </div>
        </td>
        <td class="num">${money(l.unit_amount * l.quantity)}</td>
      </tr>`,
  );
  return html`<table aria-label="${t.total}">
    <tbody>
      ${rows}
      ${
        s.discount_amount > 0
          ? html`<tr>
                <td>${t.subtotal}</td>
                <td class="num">${money(s.amount_subtotal)}</td>
              </tr>
              <tr data-testid="discount">
                <td>${t.discount}</td>
                <td class="num">−${money(s.discount_amount)}</td>
              </tr>`
          : ''
      }
      ${
        s.allow_custom_amount
          ? ''
          : html`<tr class="total">
              <td>${t.total}</td>
              <td class="num skil-amount" data-testid="total">${money(s.amount)}</td>
            </tr>`
      }
      ${[...vatByRate(s).entries()]
        .filter(([rate]) => rate > 0)
        .map(
          ([rate, vat]) =>
            html`<tr class="vat">
              <td colspan="2">${t.vatIncluded(rate, money(vat))}</td>
            </tr>`,
        )}
    </tbody>
  </table>`;
}
