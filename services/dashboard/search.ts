import type { Knex } from '../../db/knex';
import type { Scope } from '../../domain/scope';
import {
  createDashboardSearchRepository,
  type SearchHits,
  type SearchTerms,
} from '../../db/dashboard-search';

/** The longest search the dashboard takes; longer words are cut here. */
export const SEARCH_MAX_LENGTH = 200;
/** Matches shown of each kind. */
export const SEARCH_LIMIT = 10;

/**
 * Reads what a merchant typed (decision 0231): an amount written the Icelandic or the English way
 * (`4.900`, `4,900`, `4 900 kr.`, `ISK 4900`), four digits as a card's last four, six to ten digits
 * (a dash after the sixth allowed) as a kennitala or its start, one to six digits as a krafa's
 * number; the words as typed for ids, names, e-mails, descriptions and invoice numbers.
 */
export function searchTerms(query: string): SearchTerms | null {
  const text = query.trim().slice(0, SEARCH_MAX_LENGTH);
  if (text === '') return null;
  const money = text
    .replace(/^isk\s*/i, '')
    .replace(/\s*(kr\.?|isk)$/i, '')
    .replace(/[\s\u00a0]/g, '');
  const amount = /^\d{1,3}([.,]\d{3})+$|^\d{1,12}$/.test(money) ? Number(money.replace(/[.,]/g, '')) : null;
  const kennitala = /^\d{6}-?\d{0,4}$/.test(text) ? text.replace('-', '') : null;
  return {
    text,
    amount: amount !== null && amount > 0 && Number.isSafeInteger(amount) ? amount : null,
    last4: /^\d{4}$/.test(text) ? text : null,
    kennitala,
    claimNumber: /^\d{1,6}$/.test(text) ? Number(text) : null,
  };
}

export type SearchResults = SearchHits & { terms: SearchTerms };

/** The dashboard's one search box: payments, customers, subscriptions, kröfur and invoices of one scope. */
export function createDashboardSearchService(deps: { knex: Knex }) {
  const repo = createDashboardSearchRepository(deps.knex);
  return {
    async search(scope: Scope, query: string): Promise<SearchResults | null> {
      const terms = searchTerms(query);
      if (!terms) return null;
      return { ...(await repo.search(scope, terms, SEARCH_LIMIT)), terms };
    },
  };
}

export type DashboardSearchService = ReturnType<typeof createDashboardSearchService>;
