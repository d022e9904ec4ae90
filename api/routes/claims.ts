import { Router } from 'express';
import { z } from 'zod';
import type { OperationDoc } from '../openapi';
import type { ClaimTestPayments } from '../../services/claims/test-payments';
import type { ClaimsService } from '../../services/claims/claims-service';
import { CLAIM_STATUSES, ClaimSchema } from '../../services/claims/claim-object';
import { createRoutes } from '../route';
import { listOf, listResponse } from '../list';
import { zBool, zInt } from '../validation';
import { pageOptions, pageQuery, zAmount, zId, zLine, zStoredMetadata } from '../fields';

const zDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date YYYY-MM-DD')
  .refine(
    (d) =>
      !Number.isNaN(Date.parse(`${d}T00:00:00Z`)) && new Date(`${d}T00:00:00Z`).toISOString().startsWith(d),
    'must be a valid date',
  );
const zClaimAmount = zInt().pipe(z.number().min(1).max(999_999_999_999));
const zRef = z.enum(['due_date', 'final_due_date']);
// Types only: the bounds of days and values are the claims service's (domain/claim-limits.ts).
const zTier = z
  .object({
    type: z.enum(['amount', 'percentage']),
    days: zInt().describe('Days from the reference date, 0–99'),
    value: z
      .number()
      .describe(
        'Whole ISK, or a percentage (0–100, two decimals); a default charge comes to at most 950 ISK, a discount to at most the amount',
      ),
  })
  .strict();
const zTiers = z.object({ reference_date: zRef.optional(), first: zTier, second: zTier.optional() }).strict();
const zInterest = z
  .object({
    reference_date: zRef.optional(),
    base: z.enum(['amount', 'amount_and_default_charge']).optional(),
    day_count: z.enum(['daily', '360', 'calendar']).optional(),
    percentage: z.number().min(0).max(100).optional(),
  })
  .strict();

export const CreateClaim = z
  .object({
    customer: zId.optional(),
    payer_kennitala: z.string().optional(),
    amount: zClaimAmount,
    due_date: zDate.describe('Not in the past, at most 4 years ahead'),
    final_due_date: zDate.optional(),
    cancellation_date: zDate.optional(),
    notice_fee: zAmount().optional().describe('Notice and payment fee (seðilgjald), whole ISK, at most 950'),
    default_charges: zTiers.optional(),
    default_interest: zInterest.optional(),
    discount: zTiers.optional(),
    allow_partial_payment: zBool().optional(),
    description: zLine(200).optional(),
    metadata: zStoredMetadata.optional(),
  })
  .strict();
const AmendClaim = z
  .object({
    amount: zClaimAmount.optional(),
    final_due_date: zDate.optional(),
    cancellation_date: zDate.optional(),
    notice_fee: zAmount().nullable().optional(),
    description: zLine(200).nullable().optional(),
    metadata: zStoredMetadata.optional(),
  })
  .strict();
export const ListClaims = pageQuery
  .extend({
    status: z.enum(CLAIM_STATUSES).optional(),
    customer: zId.optional(),
    payer_kennitala: z
      .string()
      .regex(/^\d{10}$/, 'must be 10 digits')
      .optional(),
    due_date: z.object({ gte: zDate.optional(), lte: zDate.optional() }).strict().optional(),
  })
  .strict();

/** The claims service's filters of a list query (the API's and the MCP tool's). */
export function claimFiltersOf(query: z.output<typeof ListClaims>): Parameters<ClaimsService['list']>[1] {
  return {
    ...(query.status && { status: query.status }),
    ...(query.customer && { customerId: query.customer }),
    ...(query.payer_kennitala && { payerKennitala: query.payer_kennitala }),
    ...(query.due_date?.gte && { dueDateGte: query.due_date.gte }),
    ...(query.due_date?.lte && { dueDateLte: query.due_date.lte }),
  };
}

/** Bank claims (kröfur): created pending, issued in batches by the claim-batch workflow (decision 0060). */
export function claimsRouter(
  deps: { claims: ClaimsService; testPayments: ClaimTestPayments },
  docs: OperationDoc[],
): Router {
  const router = Router();
  const route = createRoutes(router, docs);
  const tag = 'Claims';
  const { claims } = deps;

  route({
    method: 'post',
    path: '/v1/claims',
    summary: 'Create a claim (krafa); the next claim batch issues it at the bank',
    tag,
    body: CreateClaim,
    response: ClaimSchema,
    handler: ({ body, scope }) => claims.create(scope, body),
  });

  route({
    method: 'get',
    path: '/v1/claims',
    summary: 'List claims, newest first',
    tag,
    query: ListClaims,
    response: listOf(ClaimSchema),
    handler: async ({ query, scope }) => {
      const page = await claims.list(scope, claimFiltersOf(query), pageOptions(query));
      return listResponse('/v1/claims', page.data, page.hasMore);
    },
  });

  route({
    method: 'get',
    path: '/v1/claims/:id',
    summary: 'Retrieve a claim',
    tag,
    response: ClaimSchema,
    handler: ({ params, scope }) => claims.retrieve(scope, params.id!),
  });

  route({
    method: 'post',
    path: '/v1/claims/:id',
    summary: 'Amend an unpaid claim (at the bank too once issued)',
    tag,
    body: AmendClaim,
    response: ClaimSchema,
    handler: ({ params, body, scope }) => claims.amend(scope, params.id!, body),
  });

  route({
    method: 'post',
    path: '/v1/claims/:id/cancel',
    summary: 'Cancel an unpaid claim (at the bank too once issued)',
    tag,
    response: ClaimSchema,
    handler: ({ params, scope }) => claims.cancel(scope, params.id!),
  });

  route({
    method: 'post',
    path: '/v1/test_helpers/claims/:id/pay',
    summary:
      'Test mode: the payer pays a krafa at the test bank (issued first if pending); the sync then records it',
    tag,
    body: z.object({ amount: zClaimAmount.optional().describe('Default: all that is due today') }).strict(),
    response: ClaimSchema,
    handler: ({ params, body, scope }) => deps.testPayments.pay(scope, params.id!, body.amount),
  });

  return router;
}
