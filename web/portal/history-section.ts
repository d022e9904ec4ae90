import { formatIsk } from '../../domain/isk';
import type { Locale } from '../../domain/locale';
import type { PortalPaymentRow } from '../../services/portal/portal';
import { html, type SafeHtml } from '../../html/html';
import { dateOf, type PortalStrings } from './strings';

/** The customer's recent subscription payments, paid or failed. */
export function historySection(t: PortalStrings, locale: Locale, history: PortalPaymentRow[]): SafeHtml {
  return html`<section>
    <h2>${t.history}</h2>
    ${
      history.length === 0
        ? html`<p>${t.none}</p>`
        : html`<table>
            ${history.map(
              (h) =>
                html`<tr>
                  <td>${dateOf(h.created_at, locale)}</td>
                  <td>${h.status === 'succeeded' ? t.paid : t.failed}</td>
                  <td class="num">${formatIsk(Number(h.amount), locale, { negative: 'typographic' })}</td>
                </tr>`,
            )}
          </table>`
    }
  </section>`;
}
