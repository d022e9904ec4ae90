import { Router } from 'express';
import { z } from 'zod';
import type { OperationDoc } from '../openapi';
import type { CustomerService } from '../../services/customers/customers';
import { CustomerSchema, DeletedCustomerSchema } from '../../services/customers/customer-object';
import { zKennitala } from '../../domain/merchant-profile';
import { isGln, parsePeppolId } from '../../domain/einvoice-parties';
import { createRoutes } from '../route';
import { listOf, listResponse } from '../list';
import { pageOptions, pageQuery, zId, zLine, zStoredMetadata, zText } from '../fields';

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
  .transform((a) => ({
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
  business: z
    .boolean()
    .optional()
    .describe(
      "Buys as a business: its invoices are Peppol e-invoices (with a legal entity's kennitala it is one without this)",
    ),
  gln: z
    .string()
    .refine(isGln, 'must be a 13-digit GLN with a valid check digit')
    .nullable()
    .optional()
    .describe('Global Location Number (GS1), shown on its e-invoices'),
  peppol_id: z
    .string()
    .refine(
      (v) => parsePeppolId(v) !== null,
      "must be '0196:' and a kennitala or '0088:' and a GLN (Peppol electronic-address schemes)",
    )
    .nullable()
    .optional()
    .describe("Peppol participant id, e.g. '0196:4101692659'; its e-invoices are addressed to it"),
  metadata: zStoredMetadata.optional(),
  invoice_settings: z
    .object({
      delivery_method: z
        .enum(['peppol', 'email', 'none'])
        .describe(
          "How issued invoices reach the customer (decision 0217): `peppol`, the e-invoice through Skil's access point to the participant id of the customer's kennitala; `email`, the PDF to its address; `none`",
        ),
    })
    .strict()
    .optional(),
};

export const CreateCustomer = z
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

export const CustomerListQuery = pageQuery
  .extend({
    email: zLine(512).min(1).optional().describe('Exact e-mail address, any letter case'),
    kennitala: zKennitala.optional(),
    test_clock: zId.optional(),
  })
  .strict();

/** Customers, searchable by e-mail or kennitala, optionally bound to a test clock (decision 0023). */
export function customersRouter(deps: { customers: CustomerService }, docs: OperationDoc[]): Router {
  const router = Router();
  const route = createRoutes(router, docs);
  const { customers } = deps;
  const tag = 'Customers';

  route({
    method: 'post',
    path: '/v1/customers',
    summary: 'Create a customer',
    tag,
    body: CreateCustomer,
    response: CustomerSchema,
    handler: ({ body, scope }) => customers.create(scope, body),
  });

  route({
    method: 'get',
    path: '/v1/customers',
    summary: 'List customers, newest first; filter by email or kennitala to search',
    tag,
    query: CustomerListQuery,
    response: listOf(CustomerSchema),
    handler: async ({ query, scope }) => {
      const { email, kennitala, test_clock } = query;
      const page = await customers.list(scope, { ...pageOptions(query), email, kennitala, test_clock });
      return listResponse('/v1/customers', page.data, page.hasMore);
    },
  });

  route({
    method: 'get',
    path: '/v1/customers/:id',
    summary: 'Retrieve a customer',
    tag,
    response: CustomerSchema,
    handler: ({ params, scope }) => customers.retrieve(scope, params.id!),
  });

  route({
    method: 'patch',
    path: '/v1/customers/:id',
    summary: 'Update a customer; null clears a field',
    tag,
    body: UpdateCustomer,
    response: CustomerSchema,
    handler: ({ params, body, scope }) => customers.update(scope, params.id!, body),
  });

  route({
    method: 'delete',
    path: '/v1/customers/:id',
    summary: 'Delete a customer; redemptions and payments keep referring to it',
    tag,
    response: DeletedCustomerSchema,
    handler: ({ params, scope }) => customers.delete(scope, params.id!),
  });

  return router;
}
