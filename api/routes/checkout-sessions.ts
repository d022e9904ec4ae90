import { Router } from 'express';
import { LOCALES } from '../../domain/locale';
import { CARRIERS } from '../../domain/delivery';
import { z } from 'zod';
import type { OperationDoc } from '../openapi';
import type { CheckoutService } from '../../services/checkout';
import { CheckoutSessionSchema } from '../../services/checkout/checkout-session-object';
import { createRoutes } from '../route';
import { listOf, listResponse } from '../list';
import { zBool, zInt } from '../validation';
import {
  pageOptions,
  pageQuery,
  zAmount,
  zCurrency,
  zId,
  zLine,
  zStoredMetadata,
  zUnixSeconds,
} from '../fields';
import { VatTreatmentInput, zVatRate } from './products';
import { zTestCard } from './payment-intents';

const zUrl = z
  .string()
  .max(2048)
  .regex(/^https?:\/\/[^\s"'<>\\]+$/, 'must be an absolute http(s) URL')
  .refine((u) => URL.canParse(u), 'must be an absolute http(s) URL');
const zQuantity = zInt().pipe(z.number().min(1).max(999));

export const ItemInput = z.union([
  z.object({ product: zId, variant: zId.optional(), quantity: zQuantity.default(1) }).strict(),
  z.object({ price: zId, quantity: zQuantity.default(1) }).strict(),
  z
    .object({
      description: zLine(500).min(1),
      unit_amount: zAmount(),
      vat_rate: zVatRate.default(24),
      ...VatTreatmentInput,
      quantity: zQuantity.default(1),
    })
    .strict(),
]);

/** One language of a field's label: shown on the page, so one short line (decision 0203). */
const zLabelText = zLine(50)
  .min(1)
  .refine((text) => text.trim() !== '', 'must not be blank');

/** A field's label in Icelandic and English; at least one of the two (decision 0203). */
const FormFieldLabelSchema = z
  .object({
    is: zLabelText.nullable().optional().describe('Shown on the Icelandic checkout'),
    en: zLabelText.nullable().optional().describe('Shown on the English checkout'),
  })
  .strict()
  .refine((label) => Boolean(label.is || label.en), 'must give is, en or both');

export const FormFieldSchema = z
  .object({
    name: z.string().regex(/^[A-Za-z][A-Za-z0-9_]{0,39}$/, 'must be an identifier'),
    type: z.enum(['text', 'email', 'tel', 'number', 'date', 'url']),
    required: zBool(),
    label: FormFieldLabelSchema.nullable()
      .optional()
      .describe(
        "The field's label on the checkout: the page's language, else the other one, else the name made readable (company_size: Company size). A known field without a label in the page's language keeps the checkout's own",
      ),
  })
  .strict();

/** The session template shared by checkout sessions and payment links. */
export const SessionTemplate = z.object({
  amount: zAmount().optional(),
  currency: zCurrency.optional(),
  items: z.array(ItemInput).min(1).max(100).optional(),
  product: zId.optional(),
  success_url: zUrl.nullable().optional().describe('`{CHECKOUT_SESSION_ID}` is replaced with the session id'),
  cancel_url: zUrl.nullable().optional(),
  save_payment_method: zBool().default(false),
  business_invoice: z
    .object({ enabled: zBool() })
    .strict()
    .optional()
    .describe(
      'enabled: the checkout offers "invoice to a company" — the buyer may give a company kennitala and address, and the invoice is a business e-invoice (decision 0212)',
    ),
  locale: z.enum(LOCALES).nullable().optional(),
  form_fields: z
    .array(FormFieldSchema)
    .max(20)
    .nullable()
    .optional()
    .describe('null: name and email; []: skip the customer-info step; other names become custom_fields'),
  allow_custom_amount: zBool().default(false),
  minimum_amount: zAmount().nullable().optional(),
  metadata: zStoredMetadata.nullable().optional(),
});

export const CreateSession = SessionTemplate.extend({
  mode: z
    .enum(['payment', 'setup', 'subscription'])
    .default('payment')
    .describe(
      'setup: save a card, charge nothing; subscription: sign up to the recurring price of the one item',
    ),
  subscription_data: z
    .object({
      trial_period_days: zInt().pipe(z.number().min(1).max(730)).optional(),
      trial_end: zUnixSeconds().optional().describe('Unix seconds'),
      metadata: zStoredMetadata.optional(),
    })
    .strict()
    .optional()
    .describe(
      'mode subscription: a trial (amount 0, the code discounts the first charge after it) and metadata',
    ),
  customer: zId.nullable().optional(),
  customer_email: zLine(255).nullable().optional(),
  customer_name: zLine(255).nullable().optional(),
  customer_phone: zLine(50).nullable().optional(),
  promotion_code: z.string().min(1).max(64).optional().describe('A promotion code as the customer types it'),
  pickup_point_carriers: z
    .array(z.enum(CARRIERS))
    .min(1)
    .max(CARRIERS.length)
    .optional()
    .describe('Offer a pickup-point step with these active carriers’ points (mode payment; decision 0134)'),
  pickup_point: z
    .string()
    .regex(/^(dropp|posturinn):[A-Za-z0-9_.-]{1,64}$/, 'must be a pickup point id')
    .optional()
    .describe('A pickup point already chosen, from GET /v1/delivery/pickup-points'),
}).strict();

/** Checkout sessions (spec §2.1, §3, §4.5), with and without the trailing slash. */
export function checkoutSessionsRouter(deps: { checkout: CheckoutService }, docs: OperationDoc[]): Router {
  const router = Router();
  const route = createRoutes(router, docs);
  const tag = 'Checkout Sessions';
  const { checkout } = deps;

  // The spec writes `/v1/checkout/sessions/` and `/v1/checkout/sessions/{id}`; the other spelling of
  // each is served too, and documented once (decision 0109).
  for (const [path, alias] of [
    ['/v1/checkout/sessions/', false],
    ['/v1/checkout/sessions', true],
  ] as const) {
    route({
      method: 'post',
      path,
      alias,
      summary: 'Create a checkout session; send the customer to its url',
      tag,
      body: CreateSession,
      response: CheckoutSessionSchema,
      handler: async ({ body, scope }) => {
        const { currency: _currency, ...input } = body;
        return checkout.create(scope, input);
      },
    });
    route({
      method: 'get',
      path,
      alias,
      summary: 'List checkout sessions, newest first',
      tag,
      query: pageQuery,
      response: listOf(CheckoutSessionSchema),
      handler: async ({ query, scope }) => {
        const page = await checkout.list(scope, pageOptions(query));
        return listResponse('/v1/checkout/sessions', page.data, page.hasMore);
      },
    });
  }
  for (const [path, alias] of [
    ['/v1/checkout/sessions/:id', false],
    ['/v1/checkout/sessions/:id/', true],
  ] as const) {
    route({
      method: 'get',
      path,
      alias,
      summary: 'Retrieve a checkout session, including custom_fields',
      tag,
      response: CheckoutSessionSchema,
      handler: ({ params, scope }) => checkout.retrieve(scope, params.id!),
    });
  }
  route({
    method: 'post',
    path: '/v1/test_helpers/checkout/sessions/:id/complete',
    summary: 'Test mode: pay an open session with a test card, as a buyer on the hosted page would',
    tag,
    body: z
      .object({
        card: zTestCard
          .optional()
          .describe('A test card (the Testing guide, /docs/guides/testing); default 4242 4242 4242 4242'),
        fields: z
          .record(z.string(), z.string().max(5000))
          .optional()
          .describe("Answers to the session's fields"),
      })
      .strict(),
    response: CheckoutSessionSchema,
    handler: ({ params, body, scope }) =>
      checkout.completeForTest(scope, params.id!, {
        ...(body.card && { card: body.card }),
        ...(body.fields && { fields: body.fields }),
      }),
  });
  return router;
}
