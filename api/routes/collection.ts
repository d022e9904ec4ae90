import { Router } from 'express';
import { z } from 'zod';
import type { OperationDoc } from '../openapi';
import type { CollectionPolicies } from '../../services/collection/collection-policy';
import type { CollectionService } from '../../services/collection/collection-service';
import { ClaimCollectionSchema } from '../../services/collection/collection-object';
import { createRoutes } from '../route';
import { zBool, zInt } from '../validation';

const zDays = zInt().describe('Whole days');
const zIsk = zInt().describe('Whole ISK');

const Policy = z
  .object({
    warning: z
      .object({
        pay_within_days: zDays.describe(
          'Days from sending the payer has to pay, at least 10 (Collection Act art. 7)',
        ),
        cost: zIsk.describe('At most the `warning` cap'),
        waive_for_businesses: zBool().describe('Leave the warning out when the payer is a company'),
      })
      .strict(),
    interim_steps: z
      .array(
        z
          .object({
            kind: z.enum(['letter', 'reminder', 'call']),
            days_after_previous: zDays,
            cost_by_band: z
              .tuple([zIsk, zIsk, zIsk, zIsk])
              .optional()
              .describe(
                'A letter or reminder: cost per principal band (≤ 2,999; 3,000–10,499; 10,500–84,999; ≥ 85,000)',
              ),
            cost: zIsk.optional().describe('A call: its cost'),
          })
          .strict(),
      )
      .max(4),
    final_step: z.object({ action: z.enum(['hand_off', 'close']), days_after_previous: zDays }).strict(),
  })
  .strict();

const PolicySchema = Policy.extend({
  warning: Policy.shape.warning.extend({ waive_for_businesses: z.boolean() }),
  object: z.literal('collection_policy'),
  livemode: z.boolean(),
  is_default: z.boolean(),
});

/**
 * Collection of overdue kröfur (decisions 0245, 0246): the merchant's policy and a krafa's
 * collection with what is owed now.
 */
export function collectionRouter(
  deps: { policies: CollectionPolicies; collection: CollectionService },
  docs: OperationDoc[],
): Router {
  const router = Router();
  const route = createRoutes(router, docs);
  const tag = 'Claims';

  route({
    method: 'get',
    path: '/v1/collection_policy',
    summary: 'The collection policy for overdue kröfur (the lawful defaults until one is set)',
    tag,
    response: PolicySchema,
    handler: ({ scope }) => deps.policies.retrieve(scope),
  });

  route({
    method: 'post',
    path: '/v1/collection_policy',
    summary: 'Set the collection policy; a cost above a legal cap is refused naming the cap',
    tag,
    body: Policy,
    response: PolicySchema,
    handler: ({ scope, body }) => deps.policies.update(scope, body),
  });

  route({
    method: 'get',
    path: '/v1/claims/:id/collection',
    summary: "A krafa's collection: its state, next step and when, the steps taken and what is owed today",
    tag,
    response: ClaimCollectionSchema,
    handler: ({ scope, params }) => deps.collection.retrieve(scope, params.id!),
  });

  return router;
}
