import { formatIsk } from '../../domain/isk';
import type { Locale } from '../../domain/locale';
import type { PortalPriceRow, PortalSubscriptionRow } from '../../services/portal/portal';
import { html, type SafeHtml } from '../../html/html';
import { dateOf, type PortalStrings } from './strings';

interface SectionContext {
  t: PortalStrings;
  locale: Locale;
  /** The form action of a portal operation (`cancel`, `switch`, `card`). */
  action: (name: string) => string;
}

function cancelForm(s: PortalSubscriptionRow, { t, action }: SectionContext): SafeHtml | '' {
  if (s.cancel_at_period_end) return '';
  return html`<form method="post" action="${action('cancel')}">
    <input type="hidden" name="subscription" value="${s.id}" />
    <label><input type="radio" name="when" value="period_end" checked /> ${t.atPeriodEnd}</label>
    <label><input type="radio" name="when" value="now" /> ${t.now}</label>
    <label for="reason-${s.id}">${t.reason}</label>
    <input id="reason-${s.id}" name="reason" maxlength="500" />
    <button type="submit" name="cancel">${t.cancel}</button>
  </form>`;
}

function switchForm(s: PortalSubscriptionRow, allowed: PortalPriceRow[], ctx: SectionContext): SafeHtml | '' {
  const { t, locale, action } = ctx;
  const others = allowed.filter((p) => p.id !== s.price_id);
  if (others.length === 0) return '';
  const money = (a: number) => formatIsk(a, locale, { negative: 'typographic' });
  return html`<form method="post" action="${action('switch')}">
    <input type="hidden" name="subscription" value="${s.id}" />
    <label for="price-${s.id}">${t.switchPrice}</label>
    <select id="price-${s.id}" name="price">
      ${others.map(
        (p) =>
          html`<option value="${p.id}">
            ${p.nickname ?? p.name} — ${money(Number(p.unit_amount))} / ${p.recurring_interval}
          </option>`,
      )}
    </select>
    <button type="submit">${t.switch}</button>
  </form>`;
}

/** One subscription: plan, status, the next charge or the end, and its cancel and switch forms. */
export function subscriptionSection(
  s: PortalSubscriptionRow,
  allowed: PortalPriceRow[],
  ctx: SectionContext,
): SafeHtml {
  const { t, locale } = ctx;
  const next = s.cancel_at_period_end
    ? t.endsAt(dateOf(s.current_period_end, locale))
    : t.nextCharge(
        formatIsk(Number(s.unit_amount) * s.quantity, locale, { negative: 'typographic' }),
        dateOf(s.current_period_end, locale),
      );
  return html`<section data-subscription="${s.id}">
    <h2>${s.nickname ?? s.name}</h2>
    <p class="status">${t.status[s.status] ?? s.status}</p>
    <p class="next">${next}</p>
    ${cancelForm(s, ctx)} ${switchForm(s, allowed, ctx)}
  </section>`;
}

export type { SectionContext };
