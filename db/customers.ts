import type { Db } from './knex';
import type { Scope } from '../domain/scope';
import { newId, ID_PREFIX } from '../domain/ids';
import { pageByCreated } from './pagination';
import { existsInOtherMode, type PageOptions } from './tenant';

export interface Address {
  line1: string | null;
  line2: string | null;
  postal_code: string | null;
  city: string | null;
  country: string | null;
}

export interface CustomerRow {
  id: string;
  merchant_id: string;
  livemode: boolean;
  name: string | null;
  email: string | null;
  phone: string | null;
  kennitala: string | null;
  description: string | null;
  address: Address | null;
  /** Marked by the merchant as buying as a business (decision 0210). */
  business: boolean;
  gln: string | null;
  peppol_id: string | null;
  /** How issued invoices reach the customer (decision 0217). */
  invoice_delivery: 'peppol' | 'email' | 'none';
  default_payment_method_id: string | null;
  test_clock_id: string | null;
  metadata: Record<string, string>;
  created_at: Date;
  updated_at: Date;
  deleted_at: Date | null;
}

export interface CustomerFields {
  name?: string | null;
  email?: string | null;
  phone?: string | null;
  /** Ten digits, already validated and normalised. */
  kennitala?: string | null;
  description?: string | null;
  address?: Address | null;
  business?: boolean;
  /** Thirteen digits with GS1's check digit, already validated. */
  gln?: string | null;
  /** `0196:<kennitala>` or `0088:<gln>`, already validated. */
  peppol_id?: string | null;
  metadata?: Record<string, string>;
  invoice_delivery?: 'peppol' | 'email' | 'none';
}

function columns(input: CustomerFields) {
  return {
    ...(input.name !== undefined && { name: input.name }),
    ...(input.email !== undefined && { email: input.email }),
    ...(input.phone !== undefined && { phone: input.phone }),
    ...(input.kennitala !== undefined && { kennitala: input.kennitala }),
    ...(input.description !== undefined && { description: input.description }),
    ...(input.address !== undefined && { address: input.address }),
    ...(input.business !== undefined && { business: input.business }),
    ...(input.gln !== undefined && { gln: input.gln }),
    ...(input.peppol_id !== undefined && { peppol_id: input.peppol_id }),
    ...(input.metadata !== undefined && { metadata: input.metadata }),
    ...(input.invoice_delivery !== undefined && { invoice_delivery: input.invoice_delivery }),
  };
}

export function createCustomerRepository(db: Db) {
  const scoped = (scope: Scope, trx: Db) =>
    trx<CustomerRow>('customers')
      .where({ merchant_id: scope.merchantId, livemode: scope.livemode })
      .whereNull('deleted_at');

  return {
    async create(
      scope: Scope,
      input: CustomerFields & { testClockId?: string | null },
      trx: Db = db,
    ): Promise<CustomerRow> {
      const [row] = await trx<CustomerRow>('customers')
        .insert({
          id: newId(ID_PREFIX.customer),
          merchant_id: scope.merchantId,
          livemode: scope.livemode,
          metadata: {},
          ...columns(input),
          test_clock_id: input.testClockId ?? null,
        })
        .returning('*');
      return row!;
    },

    async findById(scope: Scope, id: string, trx: Db = db): Promise<CustomerRow | undefined> {
      return scoped(scope, trx).where({ id }).first();
    },

    existsInOtherMode: (scope: Scope, id: string, trx: Db = db) =>
      existsInOtherMode(trx, 'customers', scope, id, { softDeleted: true }),

    /** The customer's test clock and that clock's time (both null for a customer on real time). */
    async clockOf(
      scope: Scope,
      id: string,
      trx: Db = db,
    ): Promise<{ testClockId: string | null; frozenTime: Date | null }> {
      const row = await trx('customers')
        .leftJoin('test_clocks', 'test_clocks.id', 'customers.test_clock_id')
        .where({
          'customers.id': id,
          'customers.merchant_id': scope.merchantId,
          'customers.livemode': scope.livemode,
        })
        .first<{ test_clock_id: string | null; frozen_time: Date | null } | undefined>(
          'customers.test_clock_id',
          'test_clocks.frozen_time',
        );
      return { testClockId: row?.test_clock_id ?? null, frozenTime: row?.frozen_time ?? null };
    },

    /** Newest first; `email` matches case-insensitively, `kennitala` exactly (ten digits). */
    async list(
      scope: Scope,
      opts: PageOptions & { email?: string; kennitala?: string; testClockId?: string },
      trx: Db = db,
    ): Promise<{ data: CustomerRow[]; hasMore: boolean }> {
      const query = scoped(scope, trx);
      if (opts.email !== undefined) query.whereRaw('lower(email) = lower(?)', [opts.email]);
      if (opts.kennitala !== undefined) query.where({ kennitala: opts.kennitala });
      if (opts.testClockId !== undefined) query.where({ test_clock_id: opts.testClockId });
      return pageByCreated(query, 'customers', scope, opts);
    },

    /**
     * Customers that may be businesses (marked so, or a kennitala starting as a legal entity's does,
     * 4-7) whose name contains `text` or whose kennitala starts with `kennitala`; the caller applies
     * the exact rule (decision 0210). Names first, alphabetically.
     */
    async searchBusinesses(
      scope: Scope,
      terms: { text: string; kennitala: string | null },
      limit: number,
      trx: Db = db,
    ): Promise<CustomerRow[]> {
      const like = `%${terms.text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      return scoped(scope, trx)
        .where((w) => {
          w.where({ business: true }).orWhereRaw(`kennitala ~ '^[4-7]'`);
        })
        .where((w) => {
          w.whereILike('name', like);
          if (terms.kennitala) w.orWhereLike('kennitala', `${terms.kennitala}%`);
        })
        .orderBy([{ column: 'name' }, { column: 'id' }])
        .limit(limit);
    },

    async update(
      scope: Scope,
      id: string,
      patch: CustomerFields,
      trx: Db = db,
    ): Promise<CustomerRow | undefined> {
      const [row] = await scoped(scope, trx)
        .where({ id })
        .update({ ...columns(patch), updated_at: trx.fn.now() })
        .returning('*');
      return row;
    },

    /** Soft delete: redemptions and, later, payments keep pointing at the row. */
    async delete(scope: Scope, id: string, trx: Db = db): Promise<CustomerRow | undefined> {
      const [row] = await scoped(scope, trx)
        .where({ id })
        .update({ deleted_at: trx.fn.now() })
        .returning('*');
      return row;
    },
  };
}

export type CustomerRepository = ReturnType<typeof createCustomerRepository>;
