import { Router } from 'express';
import { z } from 'zod';
import type { OperationDoc } from '../openapi';
import type {
  CreateSubscriptionInput,
  SubscriptionService,
  UpdateSubscriptionInput,
} from '../../services/subscriptions/subscriptions';
import { SubscriptionSchema } from '../../services/subscriptions/subscription-object';
import { SUBSCRIPTION_STATUSES } from '../../domain/subscription';
import { createRoutes } from '../route';
import { listOf, listResponse } from '../list';
import { pageOptions, pageQuery, zId, zLine, zStoredMetadata, zUnixTime } from '../fields';
import { zInt } from '../validation';

const zRetryDays = z
  .array(zInt().pipe(z.number().min(1).max(60)))
  .min(1)
  .max(10)
  .refine((d) => d.every((v, i) => i === 0 || v > d[i - 1]!), 'must be increasing day offsets');

const zClaimFallback = z
  .boolean()
  .nullable()
  .describe(
    "When card retries run out, issue a krafa for the renewal to the customer's kennitala before the end state; null: the merchant's default (decision 0105)",
  );

// As checkout takes it (api/routes/checkout-sessions.ts).
const zPromotionCode = z.string().min(1).max(64).describe('A promotion code as the customer types it');

export const CreateSubscription = z
  .object({
    customer: zId,
    price: zId,
    quantity: zInt().pipe(z.number().min(1).max(10_000)).default(1),
    default_payment_method: zId.optional().describe("Default: the customer's default payment method"),
    collection_method: z
      .enum(['charge_automatically', 'claim'])
      .optional()
      .describe("`claim`: each period is collected by a krafa to the customer's kennitala"),
    trial_end: zUnixTime().optional(),
    trial_period_days: zInt().pipe(z.number().min(1).max(730)).optional(),
    trial_settings: z
      .object({ end_behavior: z.object({ missing_payment_method: z.enum(['cancel', 'pause']) }).strict() })
      .strict()
      .optional(),
    coupon: zId
      .optional()
      .describe('Redeemed as checkout redeems it: refused when used up, expired or deleted'),
    promotion_code: zPromotionCode.optional(),
    dunning: z
      .object({
        retry_days: zRetryDays.optional(),
        end_state: z.enum(['canceled', 'unpaid', 'past_due']).optional(),
        claim_fallback: zClaimFallback.optional(),
      })
      .strict()
      .optional()
      .describe('Retries after a failed renewal: day offsets from the first failure (default 1, 3, 7, 14)'),
    metadata: zStoredMetadata.optional(),
  })
  .strict();

export const UpdateSubscription = z
  .object({
    price: zId
      .optional()
      .describe('Takes effect at the next period, unless proration_behavior is create_prorations'),
    proration_behavior: z
      .enum(['none', 'create_prorations'])
      .default('none')
      .describe(
        'create_prorations: the price changes now; the difference to the day is added to the next renewal',
      ),
    quantity: zInt().pipe(z.number().min(1).max(10_000)).optional(),
    default_payment_method: zId.optional().describe('A past-due subscription retries at once'),
    cancel_at_period_end: z.boolean().optional(),
    cancellation_reason: zLine(500).nullable().optional(),
    coupon: zId
      .nullable()
      .optional()
      .describe('A new coupon is redeemed (counted, refused when not valid); null removes the discount'),
    promotion_code: zPromotionCode.optional(),
    dunning: z.object({ claim_fallback: zClaimFallback }).strict().optional(),
    metadata: zStoredMetadata.optional(),
  })
  .strict();

export const CancelSubscription = z.object({ cancellation_reason: zLine(500).optional() }).strict();

export const SubscriptionListQuery = pageQuery
  .extend({
    customer: zId.optional(),
    status: z.enum(SUBSCRIPTION_STATUSES).optional(),
    price: zId.optional(),
  })
  .strict();

/** The subscription service's input of a create body (the API's and the MCP tool's). */
export function createInputOf(body: z.output<typeof CreateSubscription>): CreateSubscriptionInput {
  return {
    customer: body.customer,
    price: body.price,
    quantity: body.quantity,
    missingPaymentMethod: body.trial_settings?.end_behavior.missing_payment_method ?? 'cancel',
    ...(body.default_payment_method !== undefined && { paymentMethod: body.default_payment_method }),
    ...(body.collection_method !== undefined && { collectionMethod: body.collection_method }),
    ...(body.trial_end !== undefined && { trialEnd: body.trial_end }),
    ...(body.trial_period_days !== undefined && { trialPeriodDays: body.trial_period_days }),
    ...(body.coupon !== undefined && { coupon: body.coupon }),
    ...(body.promotion_code !== undefined && { promotionCode: body.promotion_code }),
    ...(body.dunning?.retry_days !== undefined && { retryDays: body.dunning.retry_days }),
    ...(body.dunning?.end_state !== undefined && { endState: body.dunning.end_state }),
    ...(body.dunning?.claim_fallback !== undefined && { claimFallback: body.dunning.claim_fallback }),
    ...(body.metadata !== undefined && { metadata: body.metadata }),
  };
}

/** The subscription service's input of an update body (the API's and the MCP tool's). */
export function updateInputOf(body: z.output<typeof UpdateSubscription>): UpdateSubscriptionInput {
  return {
    ...(body.price !== undefined && { price: body.price, prorationBehavior: body.proration_behavior }),
    ...(body.quantity !== undefined && { quantity: body.quantity }),
    ...(body.default_payment_method !== undefined && { paymentMethod: body.default_payment_method }),
    ...(body.cancel_at_period_end !== undefined && { cancelAtPeriodEnd: body.cancel_at_period_end }),
    ...(body.cancellation_reason !== undefined && { cancellationReason: body.cancellation_reason }),
    ...(body.coupon !== undefined && { coupon: body.coupon }),
    ...(body.promotion_code !== undefined && { promotionCode: body.promotion_code }),
    ...(body.dunning !== undefined && { claimFallback: body.dunning.claim_fallback }),
    ...(body.metadata !== undefined && { metadata: body.metadata }),
  };
}

/** Subscriptions (decision 0040): create, retrieve, list, update, cancel. */
export function subscriptionsRouter(
  deps: { subscriptions: SubscriptionService },
  docs: OperationDoc[],
): Router {
  const router = Router();
  const route = createRoutes(router, docs);
  const { subscriptions } = deps;
  const tag = 'Subscriptions';

  route({
    method: 'post',
    path: '/v1/subscriptions',
    summary: 'Create a subscription: the first period is charged, or a trial begins',
    tag,
    body: CreateSubscription,
    response: SubscriptionSchema,
    handler: ({ body, scope }) => subscriptions.create(scope, createInputOf(body)),
  });

  route({
    method: 'get',
    path: '/v1/subscriptions',
    summary: 'List subscriptions, newest first; filter by customer, status or price',
    tag,
    query: SubscriptionListQuery,
    response: listOf(SubscriptionSchema),
    handler: async ({ query, scope }) => {
      const { customer, status, price } = query;
      const page = await subscriptions.list(scope, { ...pageOptions(query), customer, status, price });
      return listResponse('/v1/subscriptions', page.data, page.hasMore);
    },
  });

  route({
    method: 'get',
    path: '/v1/subscriptions/:id',
    summary: 'Retrieve a subscription',
    tag,
    response: SubscriptionSchema,
    handler: ({ params, scope }) => subscriptions.retrieve(scope, params.id!),
  });

  route({
    method: 'post',
    path: '/v1/subscriptions/:id',
    summary:
      'Update a subscription: price (next period), quantity, card, cancel at period end, coupon, krafa fallback',
    tag,
    body: UpdateSubscription,
    response: SubscriptionSchema,
    handler: ({ params, body, scope }) => subscriptions.update(scope, params.id!, updateInputOf(body)),
  });

  route({
    method: 'delete',
    path: '/v1/subscriptions/:id',
    summary: 'Cancel a subscription now',
    tag,
    body: CancelSubscription,
    response: SubscriptionSchema,
    handler: ({ params, body, scope }) =>
      subscriptions.cancel(scope, params.id!, body?.cancellation_reason ?? null),
  });

  return router;
}
