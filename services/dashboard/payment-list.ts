import type { Knex } from '../../db/knex';
import type { Scope } from '../../domain/scope';
import { csvRow } from '../../domain/csv';
import type { ClaimFilters } from '../../db/claims';
import {
  createPaymentListRepository,
  PAYMENT_SORTS,
  type PaymentListFilter,
  type PaymentListRow,
  type PaymentSort,
} from '../../db/payment-list';

export { PAYMENT_SORTS, type PaymentSort, type PaymentListRow };

export const PAYMENT_STATUSES = [
  'succeeded',
  'requires_payment_method',
  'requires_action',
  'requires_capture',
  'processing',
  'canceled',
] as const;
export const PAYMENT_KINDS = ['card', 'krafa'] as const;

/** What is wrong with one filter field, for the page to say beside it (decision 0232). */
export interface FilterError {
  param: 'status' | 'from' | 'to' | 'min' | 'max' | 'customer' | 'kind' | 'sort';
  code: 'choice' | 'date' | 'reversed' | 'amount' | 'id';
}

/** The filter fields as the member typed them, to show again in the form. */
export type FilterValues = Record<
  'status' | 'from' | 'to' | 'min' | 'max' | 'customer' | 'kind' | 'sort',
  string
>;

export interface ReadFilter {
  values: FilterValues;
  filter: PaymentListFilter;
  sort: PaymentSort;
  errors: FilterError[];
}

const DAY = 86_400_000;

/** A calendar date yyyy-mm-dd that exists, as its UTC midnight; null otherwise. */
function dateOf(text: string): Date | null {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return null;
  const d = new Date(`${text}T00:00:00Z`);
  return Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== text ? null : d;
}

/** Whole krónur as typed (`4900`, `4.900`, `4,900`, `4 900`); null when not one. */
function kronurOf(text: string): number | null {
  const t = text.replace(/[\s\u00a0]/g, '').replace(/kr\.?$/i, '');
  if (!/^\d{1,3}([.,]\d{3})+$|^\d{1,12}$/.test(t)) return null;
  return Number(t.replace(/[.,]/g, ''));
}

/**
 * Reads the list's query string: each field checked on its own and against its pair (dates not
 * reversed, the least amount not above the most), every fault named by its field. Faulty fields
 * filter nothing; the page shows the faults and no list.
 */
export function readPaymentFilter(query: Record<string, unknown>): ReadFilter {
  const raw = (k: keyof FilterValues) => {
    const v = query[k];
    return typeof v === 'string' ? v.trim().slice(0, 100) : '';
  };
  const values: FilterValues = {
    status: raw('status'),
    from: raw('from'),
    to: raw('to'),
    min: raw('min'),
    max: raw('max'),
    customer: raw('customer'),
    kind: raw('kind'),
    sort: raw('sort'),
  };
  const errors: FilterError[] = [];
  const filter: PaymentListFilter = {};
  if (values.status) {
    if ((PAYMENT_STATUSES as readonly string[]).includes(values.status)) filter.statuses = [values.status];
    else errors.push({ param: 'status', code: 'choice' });
  }
  const from = values.from ? dateOf(values.from) : null;
  const to = values.to ? dateOf(values.to) : null;
  if (values.from && !from) errors.push({ param: 'from', code: 'date' });
  if (values.to && !to) errors.push({ param: 'to', code: 'date' });
  if (from && to && from > to) errors.push({ param: 'to', code: 'reversed' });
  if (from) filter.createdFrom = from;
  if (to) filter.createdBefore = new Date(to.getTime() + DAY);
  const min = values.min ? kronurOf(values.min) : null;
  const max = values.max ? kronurOf(values.max) : null;
  if (values.min && min === null) errors.push({ param: 'min', code: 'amount' });
  if (values.max && max === null) errors.push({ param: 'max', code: 'amount' });
  if (min !== null && max !== null && min > max) errors.push({ param: 'max', code: 'reversed' });
  if (min !== null) filter.amountMin = min;
  if (max !== null) filter.amountMax = max;
  if (values.customer) {
    if (/^cus_[0-9A-Za-z]{1,60}$/.test(values.customer)) filter.customerId = values.customer;
    else errors.push({ param: 'customer', code: 'id' });
  }
  if (values.kind) {
    if (values.kind === 'card' || values.kind === 'krafa') filter.kind = values.kind;
    else errors.push({ param: 'kind', code: 'choice' });
  }
  let sort: PaymentSort = 'created_desc';
  if (values.sort) {
    const found = PAYMENT_SORTS.find((s) => s === values.sort);
    if (found) sort = found;
    else errors.push({ param: 'sort', code: 'choice' });
  }
  return { values, filter, sort, errors };
}

export const CSV_HEADER = [
  'id',
  'created',
  'status',
  'kind',
  'amount',
  'amount_captured',
  'amount_refunded',
  'fee',
  'net',
  'customer',
  'card_last4',
  'description',
];

/** Rows read per statement while exporting: memory stays at one page whatever the list's length. */
export const EXPORT_PAGE = 1000;

/** The merchant's filtered payments: a page for the list, or all of them as CSV lines for the export. */
export function createPaymentListService(deps: { knex: Knex }) {
  const repo = createPaymentListRepository(deps.knex);
  return {
    page: (scope: Scope, r: Pick<ReadFilter, 'filter' | 'sort'>, opts: { limit: number; after?: string }) =>
      repo.page(scope, r.filter, r.sort, opts),

    /**
     * The filtered list as CSV, a page of rows at a time in the list's order (decision 0232): the
     * caller writes each chunk before the next page is read.
     */
    async *csv(scope: Scope, r: Pick<ReadFilter, 'filter' | 'sort'>): AsyncGenerator<string> {
      yield csvRow(CSV_HEADER);
      let after: string | undefined;
      for (;;) {
        const page = await repo.page(scope, r.filter, r.sort, {
          limit: EXPORT_PAGE,
          ...(after && { after }),
        });
        yield page.data
          .map((p) =>
            csvRow([
              p.id,
              p.created_at.toISOString(),
              p.status,
              p.kind,
              Number(p.amount),
              Number(p.amount_captured),
              Number(p.amount_refunded),
              p.fee_amount === null ? null : Number(p.fee_amount),
              p.fee_amount === null ? null : Number(p.amount_captured) - Number(p.fee_amount),
              p.customer_id,
              p.card_last4,
              p.description,
            ]),
          )
          .join('');
        if (!page.hasMore) return;
        after = page.data[page.data.length - 1]!.id;
      }
    },
  };
}

export type PaymentListService = ReturnType<typeof createPaymentListService>;

/** The kröfur list's filter fields as typed. */
export type ClaimFilterValues = Record<'status' | 'due_from' | 'due_to' | 'customer' | 'payer', string>;

export interface ClaimFilterError {
  param: keyof ClaimFilterValues;
  code: 'choice' | 'date' | 'reversed' | 'id' | 'kennitala';
}

/**
 * Reads the kröfur list's query string (decision 0232): status, due date range (gjalddagi, both
 * days included), customer id and payer's kennitala, each fault named by its field.
 */
export function readClaimFilter(
  query: Record<string, unknown>,
  statuses: readonly string[],
): {
  values: ClaimFilterValues;
  filters: ClaimFilters;
  errors: ClaimFilterError[];
} {
  const raw = (k: keyof ClaimFilterValues) => {
    const v = query[k];
    return typeof v === 'string' ? v.trim().slice(0, 100) : '';
  };
  const values: ClaimFilterValues = {
    status: raw('status'),
    due_from: raw('due_from'),
    due_to: raw('due_to'),
    customer: raw('customer'),
    payer: raw('payer'),
  };
  const errors: ClaimFilterError[] = [];
  const filters: ClaimFilters = {};
  if (values.status) {
    // A member of the claim statuses the caller passed, which are the presenter's.
    if (statuses.includes(values.status)) filters.status = values.status as ClaimFilters['status'];
    else errors.push({ param: 'status', code: 'choice' });
  }
  const from = values.due_from ? dateOf(values.due_from) : null;
  const to = values.due_to ? dateOf(values.due_to) : null;
  if (values.due_from && !from) errors.push({ param: 'due_from', code: 'date' });
  if (values.due_to && !to) errors.push({ param: 'due_to', code: 'date' });
  if (from && to && from > to) errors.push({ param: 'due_to', code: 'reversed' });
  if (from) filters.dueDateGte = values.due_from;
  if (to) filters.dueDateLte = values.due_to;
  if (values.customer) {
    if (/^cus_[0-9A-Za-z]{1,60}$/.test(values.customer)) filters.customerId = values.customer;
    else errors.push({ param: 'customer', code: 'id' });
  }
  if (values.payer) {
    const digits = values.payer.replace('-', '');
    if (/^\d{10}$/.test(digits)) filters.payerKennitala = digits;
    else errors.push({ param: 'payer', code: 'kennitala' });
  }
  return { values, filters, errors };
}
