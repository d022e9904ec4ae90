import { z } from 'zod';
import { LOCALES } from '../../domain/locale';
import type { CheckoutSessionRow } from '../../db/checkout-sessions';
import type { FormField } from '../../domain/checkout';
import { unix } from '../../domain/unix-time';
import { vatTreatmentOf } from '../../domain/vat-category';
import { VatTreatmentSchema } from '../vat-treatment-object';
import { PickupPointSchema, presentPickupPoint } from '../delivery/delivery-object';

const LineItemSchema = z.object({
  id: z.string(),
  product_id: z.string().nullable(),
  variant_id: z.string().nullable(),
  description: z.string(),
  quantity: z.number().int(),
  unit_amount: z.number().int(),
  vat_rate: z.union([z.literal(0), z.literal(11), z.literal(24)]),
  ...VatTreatmentSchema.shape,
});

/** A form field of spec §2.1 with its label, null when the merchant gave none (decision 0203). */
const FormFieldSchema = z.object({
  name: z.string(),
  type: z.string(),
  required: z.boolean(),
  label: z
    .object({ is: z.string().nullable(), en: z.string().nullable() })
    .nullable()
    .describe(
      "The merchant's label in Icelandic and English; either may be null (our extension, decision 0203)",
    ),
});

/** Every key of a form field present, as in every other object we return. */
function presentFormField(f: FormField): z.output<typeof FormFieldSchema> {
  return {
    name: f.name,
    type: f.type,
    required: f.required,
    label: f.label ? { is: f.label.is ?? null, en: f.label.en ?? null } : null,
  };
}

/** Spec §2.1, field by field; `.strict()` in tests proves no field is missing or extra. */
export const CheckoutSessionSchema = z.object({
  id: z.string().regex(/^cs_/),
  object: z.literal('checkout.session'),
  livemode: z.boolean(),
  amount: z.number().int(),
  amount_subtotal: z.number().int(),
  discount_amount: z.number().int(),
  promotion_code_id: z.string().nullable(),
  currency: z.literal('ISK'),
  status: z.enum(['open', 'complete', 'expired']),
  url: z.string(),
  short_url: z.string(),
  success_url: z.string().nullable(),
  cancel_url: z.string().nullable(),
  save_payment_method: z.boolean(),
  customer: z.string().nullable(),
  product: z.string().nullable(),
  subscription: z.string().nullable(),
  payment_intent: z
    .string()
    .nullable()
    .describe(
      'Id of the payment intent created once payment completes: null while the session is open (a declined card attempt included), set when the payment is captured or the krafa paid (decision 0204)',
    ),
  payment_method: z.string().nullable(),
  customer_email: z.string().nullable(),
  customer_name: z.string().nullable(),
  customer_phone: z.string().nullable(),
  payment_status: z.enum(['paid', 'awaiting_claim', 'unpaid', 'no_payment_required']),
  locale: z.enum(LOCALES).nullable(),
  items: z.array(LineItemSchema),
  form_fields: z.array(FormFieldSchema).nullable(),
  custom_fields: z.record(z.string(), z.string()).nullable(),
  allow_custom_amount: z.boolean(),
  minimum_amount: z.number().int().nullable(),
  expires_at: z.number(),
  created_at: z.number(),
  metadata: z.record(z.string(), z.unknown()).nullable(),
  pickup_point: PickupPointSchema.nullable().describe(
    'The pickup point the parcel goes to, once chosen; null when none is (our extension of §2.1, decision 0134)',
  ),
  business_invoice: z
    .object({ enabled: z.boolean() })
    .describe('Whether the checkout offers "invoice to a company" (our extension of §2.1, decision 0212)'),
});

/** The checkout session object of spec §2.1, every field present. */
export function presentSession(row: CheckoutSessionRow, baseUrl: string) {
  return {
    id: row.id,
    object: 'checkout.session' as const,
    livemode: row.livemode,
    amount: row.amount,
    amount_subtotal: row.amount_subtotal,
    discount_amount: row.discount_amount,
    promotion_code_id: row.promotion_code_id,
    currency: row.currency,
    status: row.status,
    url: `${baseUrl}/checkout/${row.id}`,
    short_url: `${baseUrl}/s/${row.short_code}`,
    success_url: row.success_url,
    cancel_url: row.cancel_url,
    save_payment_method: row.save_payment_method,
    customer: row.customer_id,
    product: row.product_id,
    subscription: row.subscription_id,
    payment_intent: row.payment_intent_id,
    payment_method: row.payment_method_id,
    customer_email: row.customer_email,
    customer_name: row.customer_name,
    customer_phone: row.customer_phone,
    payment_status: row.payment_status,
    locale: row.locale,
    items: row.items.map((i) => ({
      id: i.id,
      product_id: i.product_id,
      variant_id: i.variant_id,
      description: i.description,
      quantity: i.quantity,
      unit_amount: i.unit_amount,
      vat_rate: i.vat_rate,
      ...vatTreatmentOf(i),
    })),
    form_fields: row.form_fields?.map(presentFormField) ?? null,
    custom_fields: row.custom_fields,
    allow_custom_amount: row.allow_custom_amount,
    minimum_amount: row.minimum_amount,
    expires_at: unix(row.expires_at),
    created_at: unix(row.created_at),
    metadata: row.metadata,
    pickup_point: row.pickup_point ? presentPickupPoint(row.pickup_point) : null,
    business_invoice: { enabled: row.business_invoice },
  };
}
