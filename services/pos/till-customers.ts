import type { Scope } from '../../domain/scope';
import { isBusinessBuyer } from '../../domain/einvoice-parties';
import { createCustomerRepository } from '../../db/customers';
import { createInvoiceRepository } from '../../db/invoices';
import type { TillDeps } from './till-deps';

/** A business customer as the till shows it: enough to pick the right one at the counter. */
export interface TillCustomer {
  id: string;
  name: string | null;
  kennitala: string | null;
}

/** Matches shown under the till's customer search. */
const MATCHES = 8;
/** The longest search the till takes. */
const QUERY_MAX = 100;

/**
 * The business buyers a cashier may name on a sale (decision 0235): the merchant's customers that
 * are businesses by the rule of decision 0210, found by name or kennitala. Consumers are never
 * listed, so the till shows no private person's details; the sale itself checks the rule again.
 */
export function createTillCustomers(deps: Pick<TillDeps, 'knex' | 'access'>) {
  const customers = createCustomerRepository(deps.knex);
  const invoices = createInvoiceRepository(deps.knex);
  const show = (c: { id: string; name: string | null; kennitala: string | null }): TillCustomer => ({
    id: c.id,
    name: c.name,
    kennitala: c.kennitala,
  });
  return {
    async search(scope: Scope, query: string): Promise<TillCustomer[]> {
      await deps.access.assertEnabled(scope);
      const text = query.trim().slice(0, QUERY_MAX);
      if (text === '') return [];
      const digits = text.replace(/[\s-]/g, '');
      const kennitala = /^\d{2,10}$/.test(digits) ? digits : null;
      const rows = await customers.searchBusinesses(scope, { text, kennitala }, MATCHES * 2);
      return rows.filter(isBusinessBuyer).slice(0, MATCHES).map(show);
    },

    /** The named customer when it is a business of this merchant, else null. */
    async business(scope: Scope, id: string): Promise<TillCustomer | null> {
      await deps.access.assertEnabled(scope);
      const row = await customers.findById(scope, id);
      return row && isBusinessBuyer(row) ? show(row) : null;
    },

    /** The number of a sale's invoice, for the till's confirmation. */
    async invoiceNumber(scope: Scope, invoiceId: string): Promise<string | null> {
      return (await invoices.findById(scope, invoiceId))?.number ?? null;
    },
  };
}

export type TillCustomers = ReturnType<typeof createTillCustomers>;
