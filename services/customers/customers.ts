import type { Knex } from '../../db/knex';
import type { Scope } from '../../domain/scope';
import type { PageOptions } from '../../db/tenant';
import { createCustomerRepository, type CustomerFields } from '../../db/customers';
import { createTestClockRepository } from '../../db/test-clocks';
import { InvalidRequestError, NotFoundError } from '../../domain/errors';
import { findOr404, findReference, missingReference } from '../lookup';
import { presentDeletedCustomer, presentCustomer } from './customer-object';

export interface CustomerListFilter {
  /** Exact e-mail address, any letter case. */
  email?: string;
  kennitala?: string;
  test_clock?: string;
}

export type CustomerInput = Omit<CustomerFields, 'invoice_delivery'> & {
  invoice_settings?: { delivery_method: 'peppol' | 'email' | 'none' };
};

/**
 * The delivery method the customer can have (decision 0217): Peppol goes to the customer's Peppol
 * id, else the participant id of its kennitala (decision 0210), e-mail to its address, so each needs
 * that field.
 */
function checkDelivery(row: {
  invoice_delivery: string;
  kennitala: string | null;
  peppol_id: string | null;
  email: string | null;
}) {
  const param = 'invoice_settings[delivery_method]';
  if (row.invoice_delivery === 'peppol' && !row.kennitala && !row.peppol_id)
    throw new InvalidRequestError(
      "Delivery by Peppol needs the customer's peppol_id or kennitala: e-invoices go to that participant id (decision 0210)",
      { code: 'parameter_invalid', param },
    );
  if (row.invoice_delivery === 'email' && !row.email)
    throw new InvalidRequestError("Delivery by e-mail needs the customer's email", {
      code: 'parameter_invalid',
      param,
    });
}

const fieldsOf = (input: CustomerInput): CustomerFields => {
  const { invoice_settings, ...rest } = input;
  return {
    ...rest,
    ...(invoice_settings !== undefined && { invoice_delivery: invoice_settings.delivery_method }),
  };
};

/** Customers, searchable by e-mail or kennitala, optionally bound to a test clock (decision 0023). */
export function createCustomerService(deps: { knex: Knex }) {
  const customers = createCustomerRepository(deps.knex);
  const clocks = createTestClockRepository(deps.knex);

  const find = (scope: Scope, id: string) =>
    findOr404(
      'customer',
      scope,
      id,
      () => customers.findById(scope, id),
      () => customers.existsInOtherMode(scope, id),
    );

  return {
    /** `test_clock` (test mode only) binds the customer and what it subscribes to to a test clock. */
    async create(scope: Scope, input: CustomerInput & { test_clock?: string }) {
      const { test_clock, ...rest } = input;
      const fields = fieldsOf(rest);
      checkDelivery({
        invoice_delivery: fields.invoice_delivery ?? 'none',
        kennitala: fields.kennitala ?? null,
        peppol_id: fields.peppol_id ?? null,
        email: fields.email ?? null,
      });
      if (test_clock !== undefined) {
        if (scope.livemode)
          throw new InvalidRequestError('Test clocks exist in test mode only; use a test key', {
            code: 'parameter_invalid',
            param: 'test_clock',
          });
        if (!(await clocks.findById(scope, test_clock)))
          throw missingReference('test clock', test_clock, 'test_clock');
      }
      return presentCustomer(
        await customers.create(scope, {
          ...fields,
          ...(test_clock !== undefined && { testClockId: test_clock }),
        }),
      );
    },

    async list(scope: Scope, opts: PageOptions & CustomerListFilter) {
      const { test_clock, ...rest } = opts;
      if (test_clock !== undefined)
        await findReference('test clock', test_clock, 'test_clock', () => clocks.findById(scope, test_clock));
      const page = await customers.list(scope, { ...rest, testClockId: test_clock });
      return { data: page.data.map(presentCustomer), hasMore: page.hasMore };
    },

    retrieve: async (scope: Scope, id: string) => presentCustomer(await find(scope, id)),

    /** null clears a field. */
    async update(scope: Scope, id: string, input: CustomerInput) {
      const found = await find(scope, id);
      const fields = fieldsOf(input);
      checkDelivery({
        invoice_delivery: fields.invoice_delivery ?? found.invoice_delivery,
        kennitala: fields.kennitala !== undefined ? fields.kennitala : found.kennitala,
        peppol_id: fields.peppol_id !== undefined ? fields.peppol_id : found.peppol_id,
        email: fields.email !== undefined ? fields.email : found.email,
      });
      const row = await customers.update(scope, found.id, fields);
      if (!row) throw new NotFoundError(`No such customer: '${id}'`, 'id');
      return presentCustomer(row);
    },

    /** Soft delete: redemptions and payments keep referring to the customer. */
    async delete(scope: Scope, id: string) {
      const found = await find(scope, id);
      await customers.delete(scope, found.id);
      return presentDeletedCustomer(found.id);
    },
  };
}

export type CustomerService = ReturnType<typeof createCustomerService>;
