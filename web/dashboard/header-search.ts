import type { Locale } from '../../domain/locale';
import { html, type SafeHtml } from '../../html/html';
import { SEARCH_MAX_LENGTH } from '../../services/dashboard/search';
import { defineMessages } from '../messages';

const t = defineMessages({
  en: { label: 'Search payments, customers, kröfur, invoices', submit: 'Search' },
  is: { label: 'Leita í greiðslum, viðskiptavinum, kröfum, reikningum', submit: 'Leita' },
});

/** The search box in every merchant page's header (decision 0231); results at `/dashboard/search`. */
export function headerSearch(locale: Locale): SafeHtml {
  return html`<form
    class="header-search"
    method="get"
    action="/dashboard/search"
    role="search"
    aria-label="${t(locale, 'label')}"
  >
    <label for="header-q" class="skip-label">${t(locale, 'label')}</label>
    <input id="header-q" name="q" type="search" maxlength="${SEARCH_MAX_LENGTH}" />
    <button type="submit" class="secondary">${t(locale, 'submit')}</button>
  </form>`;
}
