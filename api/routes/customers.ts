import { Router } from 'express';
import { z } from 'zod';
import type { Knex } from '../../db/knex';
import type { Scope } from '../../domain/scope';
import type { OperationDoc } from '../openapi';
import { createCustomerRepository, type Address, type CustomerRow } from '../../db/customers';
import { createTestClockRepository } from '../../db/test-clocks';
import { InvalidRequestError, NotFoundError } from '../../domain/errors';
import { profileWarnings, zKennitala } from '../../domain/merchant-profile';
import { createRoutes } from '../route';
import { listOf, listResponse } from '../list';
import { unix } from '../../domain/unix-time';
import { pageOptions, pageQuery, zId, zLine, zStoredMetadata, zText } from '../fields';
import { findOr404, missingReference } from '../../services/lookup';

const AddressInput = z
  .object({
    line1: zLine(200).nullable().optional(),
    line2: zLine(200).nullable().optional(),
    postal_code: zLine(20).nullable().optional(),
    city: zLine(100).nullable().optional(),
    country: z
      .string()
      .regex(/^[A-Za-z]{2}$/, 'must be a two-letter ISO 3166-1 country code')
      .transform((c) => c.toUpperCase())
      .nullable()
      .optional(),
  })
  .strict()
  .transform((a): Address => ({
    line1: a.line1 ?? null,
    line2: a.line2 ?? null,
    postal_code: a.postal_code ?? null,
    city: a.city ?? null,
    country: a.country ?? null,
  }));

const fields = {
  name: zLine(255).nullable().optional(),
  email: z.email().max(512).nullable().optional(),
  phone: zLine(50).nullable().optional(),
  kennitala: zKennitala.nullable().optional().describe('10 digits; a failed check digit is a warning'),
  description: zText(5000).nullable().optional(),
  address: AddressInput.nullable().optional(),
  metadata: zStoredMetadata.optional(),
};

const CreateCustomer = z
  .object({
    ...fields,
    test_clock: z
      .string()
      .min(1)
      .max(64)
      .optional()
      .describe('Test mode only: bind the customer to a test clock'),
  })
  .strict();

const UpdateCustomer = z.object(fields).strict();

const CustomerListQuery = pageQuery
  .extend({
    email: zLine(512).min(1).optional().describe('Exact e-mail address, any letter case'),
    kennitala: zKennitala.optional(),
    test_clock: zId.optional(),
  })
  .strict();

const WarningSchema = z.object({ code: z.string(), param: z.string(), message: z.string() });

export const CustomerSchema = z.object({
  id: z.string(),
  object: z.literal('customer'),
  livemode: z.boolean(),
  name: z.string().nullable(),
  email: z.string().nullable(),
  phone: z.string().nullable(),
  kennitala: z.string().nullable(),
  description: z.string().nullable(),
  address: z
    .object({
      line1: z.string().nullable(),
      line2: z.string().nullable(),
      postal_code: z.string().nullable(),
      city: z.string().nullable(),
      country: z.string().nullable(),
    })
    .nullable(),
  default_payment_method: z.string().nullable().describe('Set once payment methods exist'),
  test_clock: z.string().nullable(),
  warnings: z.array(WarningSchema).describe('Accepted but worth checking, e.g. a kennitala check digit'),
  metadata: z.record(z.string(), z.string()),
  created_at: z.number(),
  updated_at: z.number(),
});

function presentCustomer(row: CustomerRow) {
  return {
    id: row.id,
    object: 'customer' as const,
    livemode: row.livemode,
    name: row.name,
    email: row.email,
    phone: row.phone,
    kennitala: row.kennitala,
    description: row.description,
    address: row.address,
    default_payment_method: row.default_payment_method_id,
    test_clock: row.test_clock_id,
    warnings: profileWarnings({ kennitala: row.kennitala, merchant_type: null }),
    metadata: row.metadata,
    created_at: unix(row.created_at),
    updated_at: unix(row.updated_at),
  };
}

/** Customers, searchable by e-mail or kennitala, optionally bound to a test clock (decision 0023). */
export function customersRouter(deps: { knex: Knex }, docs: OperationDoc[]): Router {
  const router = Router();
  const route = createRoutes(router, docs);
  const customers = createCustomerRepository(deps.knex);
  const clocks = createTestClockRepository(deps.knex);
  const tag = 'Customers';

  const findCustomer = (scope: Scope, id: string) =>
    findOr404(
      'customer',
      scope,
      id,
      () => customers.findById(scope, id),
      () => customers.existsInOtherMode(scope, id),
    );

  route({
    method: 'post',
    path: '/v1/customers',
    summary: 'Create a customer',
    tag,
    body: CreateCustomer,
    response: CustomerSchema,
    handler: async ({ body, scope }) => {
      if (body.test_clock !== undefined) {
        if (scope.livemode)
          throw new InvalidRequestError('Test clocks exist in test mode only; use a test key', {
            code: 'parameter_invalid',
            param: 'test_clock',
          });
        if (!(await clocks.findById(scope, body.test_clock)))
          throw missingReference('test clock', body.test_clock, 'test_clock');
      }
      const { test_clock, ...rest } = body;
      return presentCustomer(
        await customers.create(scope, {
          ...rest,
          ...(test_clock !== undefined && { testClockId: test_clock }),
        }),
      );
    },
  });

  route({
    method: 'get',
    path: '/v1/customers',
    summary: 'List customers, newest first; filter by email or kennitala to search',
    tag,
    query: CustomerListQuery,
    response: listOf(CustomerSchema),
    handler: async ({ query, scope }) => {
      const page = await customers.list(scope, {
        ...pageOptions(query),
        ...(query.email !== undefined && { email: query.email }),
        ...(query.kennitala !== undefined && { kennitala: query.kennitala }),
        ...(query.test_clock !== undefined && { testClockId: query.test_clock }),
      });
      return listResponse('/v1/customers', page.data.map(presentCustomer), page.hasMore);
    },
  });

  route({
    method: 'get',
    path: '/v1/customers/:id',
    summary: 'Retrieve a customer',
    tag,
    response: CustomerSchema,
    handler: async ({ params, scope }) => presentCustomer(await findCustomer(scope, params.id!)),
  });

  route({
    method: 'patch',
    path: '/v1/customers/:id',
    summary: 'Update a customer; null clears a field',
    tag,
    body: UpdateCustomer,
    response: CustomerSchema,
    handler: async ({ params, body, scope }) => {
      const found = await findCustomer(scope, params.id!);
      const row = await customers.update(scope, found.id, body);
      if (!row) throw new NotFoundError(`No such customer: '${params.id}'`, 'id');
      return presentCustomer(row);
    },
  });

  route({
    method: 'delete',
    path: '/v1/customers/:id',
    summary: 'Delete a customer; redemptions and payments keep referring to it',
    tag,
    response: z.object({ id: z.string(), object: z.literal('customer'), deleted: z.literal(true) }),
    handler: async ({ params, scope }) => {
      const found = await findCustomer(scope, params.id!);
      await customers.delete(scope, found.id);
      return { id: found.id, object: 'customer' as const, deleted: true as const };
    },
  });

  return router;
}
