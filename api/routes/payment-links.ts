import { Router } from 'express';
import { z } from 'zod';
import type { Knex } from '../../db/knex';
import type { Scope } from '../../domain/scope';
import type { OperationDoc } from '../openapi';
import type { CheckoutService } from '../../services/checkout';
import { newId, ID_PREFIX } from '../../domain/ids';
import { ConflictError, InvalidRequestError } from '../../domain/errors';
import { existsInOtherMode } from '../../db/tenant';
import { pageByCreated } from '../../db/pagination';
import { createRoutes } from '../route';
import { listOf, listResponse } from '../list';
import { unix } from '../../domain/unix-time';
import { zBool, zInt } from '../validation';
import { pageOptions, pageQuery, zStoredMetadata } from '../fields';
import { findOr404 } from '../../services/lookup';
import { SessionTemplate } from './checkout-sessions';

export interface PaymentLinkRow {
  id: string;
  merchant_id: string;
  livemode: boolean;
  active: boolean;
  template: z.output<typeof SessionTemplate>;
  completed_sessions_limit: number | null;
  completed_sessions_count: number;
  metadata: Record<string, string>;
  created_at: Date;
  updated_at: Date;
}

const zLimit = zInt().pipe(z.number().min(1).max(1_000_000_000));
const CreateLink = SessionTemplate.omit({ metadata: true })
  .extend({ completed_sessions_limit: zLimit.nullable().optional(), metadata: zStoredMetadata.optional() })
  .strict();
const UpdateLink = z
  .object({
    active: zBool().optional(),
    completed_sessions_limit: zLimit.nullable().optional(),
    metadata: zStoredMetadata.optional(),
  })
  .strict();

export const PaymentLinkSchema = z.object({
  id: z.string(),
  object: z.literal('payment_link'),
  livemode: z.boolean(),
  active: z.boolean(),
  url: z.string(),
  amount: z.number().nullable(),
  items: z.array(z.unknown()).nullable(),
  product: z.string().nullable(),
  success_url: z.string().nullable(),
  cancel_url: z.string().nullable(),
  locale: z.enum(['is', 'en']).nullable(),
  form_fields: z.array(z.unknown()).nullable(),
  allow_custom_amount: z.boolean(),
  minimum_amount: z.number().nullable(),
  save_payment_method: z.boolean(),
  completed_sessions_limit: z.number().nullable(),
  completed_sessions_count: z.number(),
  metadata: z.record(z.string(), z.string()),
  created_at: z.number(),
});

export function presentPaymentLink(row: PaymentLinkRow, baseUrl: string) {
  const t = row.template;
  return {
    id: row.id,
    object: 'payment_link' as const,
    livemode: row.livemode,
    active: row.active,
    url: `${baseUrl}/l/${row.id}`,
    amount: t.amount ?? null,
    items: t.items ?? null,
    product: t.product ?? null,
    success_url: t.success_url ?? null,
    cancel_url: t.cancel_url ?? null,
    locale: t.locale ?? null,
    form_fields: t.form_fields ?? null,
    allow_custom_amount: t.allow_custom_amount,
    minimum_amount: t.minimum_amount ?? null,
    save_payment_method: t.save_payment_method,
    completed_sessions_limit: row.completed_sessions_limit,
    completed_sessions_count: row.completed_sessions_count,
    metadata: row.metadata,
    created_at: unix(row.created_at),
  };
}

/** Payment links: a reusable URL opening a new checkout session per visit; deactivated, never deleted. */
export function paymentLinksRouter(
  deps: { knex: Knex; checkout: CheckoutService; publicBaseUrl: string },
  docs: OperationDoc[],
): Router {
  const router = Router();
  const route = createRoutes(router, docs);
  const tag = 'Payment Links';
  const table = (scope: Scope) =>
    deps
      .knex<PaymentLinkRow>('payment_links')
      .where({ merchant_id: scope.merchantId, livemode: scope.livemode });
  const find = (scope: Scope, id: string) =>
    findOr404(
      'payment_link',
      scope,
      id,
      () => table(scope).where({ id }).first(),
      () => existsInOtherMode(deps.knex, 'payment_links', scope, id),
    );
  const present = (row: PaymentLinkRow) => presentPaymentLink(row, deps.publicBaseUrl);

  route({
    method: 'post',
    path: '/v1/payment-links',
    summary: 'Create a payment link',
    tag,
    body: CreateLink,
    response: PaymentLinkSchema,
    handler: async ({ body, scope }) => {
      const { completed_sessions_limit, metadata, currency: _currency, ...template } = body;
      // The template must make a valid session: try it now, so a bad link fails at creation.
      const probe = await deps.checkout.create(scope, { ...template, mode: 'payment' });
      await deps.knex('checkout_sessions').where({ id: probe.id }).delete();
      const [row] = await deps
        .knex<PaymentLinkRow>('payment_links')
        .insert({
          id: newId(ID_PREFIX.paymentLink),
          merchant_id: scope.merchantId,
          livemode: scope.livemode,
          template: JSON.stringify(template) as never,
          completed_sessions_limit: completed_sessions_limit ?? null,
          metadata: metadata ?? {},
        })
        .returning('*');
      return present(row!);
    },
  });

  route({
    method: 'get',
    path: '/v1/payment-links',
    summary: 'List payment links, newest first',
    tag,
    query: pageQuery.extend({ active: zBool().optional() }).strict(),
    response: listOf(PaymentLinkSchema),
    handler: async ({ query, scope }) => {
      const q = table(scope);
      if (query.active !== undefined) q.where({ active: query.active });
      const page = await pageByCreated<PaymentLinkRow>(q, 'payment_links', scope, pageOptions(query));
      return listResponse('/v1/payment-links', page.data.map(present), page.hasMore);
    },
  });

  route({
    method: 'get',
    path: '/v1/payment-links/:id',
    summary: 'Retrieve a payment link',
    tag,
    response: PaymentLinkSchema,
    handler: async ({ params, scope }) => present(await find(scope, params.id!)),
  });

  route({
    method: 'post',
    path: '/v1/payment-links/:id',
    summary: 'Update a payment link: active flag, limit, metadata',
    tag,
    body: UpdateLink,
    response: PaymentLinkSchema,
    handler: async ({ params, body, scope }) => {
      const link = await find(scope, params.id!);
      if (
        body.completed_sessions_limit != null &&
        body.completed_sessions_limit < link.completed_sessions_count
      )
        throw new InvalidRequestError('completed_sessions_limit is below the sessions already completed', {
          code: 'parameter_invalid',
          param: 'completed_sessions_limit',
        });
      const [row] = await table(scope)
        .where({ id: link.id })
        .update({
          ...(body.active !== undefined && { active: body.active }),
          ...(body.completed_sessions_limit !== undefined && {
            completed_sessions_limit: body.completed_sessions_limit,
          }),
          ...(body.metadata !== undefined && { metadata: body.metadata }),
          updated_at: new Date(),
        })
        .returning('*');
      return present(row!);
    },
  });

  route({
    method: 'delete',
    path: '/v1/payment-links/:id',
    summary: 'Refused: payment links are deactivated (active=false), never deleted',
    tag,
    response: z.never(),
    handler: async ({ params, scope }) => {
      await find(scope, params.id!);
      throw new ConflictError(
        'Payment links cannot be deleted, because sessions and payments refer to them; deactivate with active=false',
        'payment_link_not_deletable',
      );
    },
  });

  return router;
}
