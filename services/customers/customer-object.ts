import { z } from 'zod';
import type { CustomerRow } from '../../db/customers';
import { profileWarnings } from '../../domain/merchant-profile';
import { unix } from '../../domain/unix-time';
import { buyerIncomplete, isBusinessBuyer } from '../../domain/einvoice-parties';

// The customer object: the API response and any other output for a customer come from presentCustomer.

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
  business: z.boolean().describe('Marked as buying as a business (decision 0210)'),
  gln: z.string().nullable(),
  peppol_id: z.string().nullable(),
  einvoice: z
    .boolean()
    .describe(
      "Whether its invoices can be Peppol e-invoices: a business (marked, or a legal entity's kennitala) with kennitala, street and postcode",
    ),
  invoice_settings: z.object({
    delivery_method: z
      .enum(['peppol', 'email', 'none'])
      .describe('How issued invoices reach the customer (decision 0217); `none` by default'),
  }),
  default_payment_method: z.string().nullable().describe('Set once payment methods exist'),
  test_clock: z.string().nullable(),
  warnings: z.array(WarningSchema).describe('Accepted but worth checking, e.g. a kennitala check digit'),
  metadata: z.record(z.string(), z.string()),
  created_at: z.number(),
  updated_at: z.number(),
});

export const DeletedCustomerSchema = z.object({
  id: z.string(),
  object: z.literal('customer'),
  deleted: z.literal(true),
});

/** What a delete answers. */
export function presentDeletedCustomer(id: string) {
  return { id, object: 'customer' as const, deleted: true as const };
}

export function presentCustomer(row: CustomerRow) {
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
    business: row.business,
    gln: row.gln,
    peppol_id: row.peppol_id,
    einvoice: isBusinessBuyer(row) && buyerIncomplete(row).length === 0,
    invoice_settings: { delivery_method: row.invoice_delivery },
    default_payment_method: row.default_payment_method_id,
    test_clock: row.test_clock_id,
    warnings: profileWarnings({ kennitala: row.kennitala, merchant_type: null }),
    metadata: row.metadata,
    created_at: unix(row.created_at),
    updated_at: unix(row.updated_at),
  };
}

export type Customer = ReturnType<typeof presentCustomer>;
