import { z } from 'zod';
import { LOCALES } from '../../domain/locale';
import type { PaymentLinkRow } from '../../db/payment-links';
import { unix } from '../../domain/unix-time';

export const PaymentLinkSchema = z.object({
  id: z.string(),
  object: z.literal('payment_link'),
  livemode: z.boolean(),
  active: z.boolean(),
  mode: z.enum(['payment', 'subscription']),
  url: z.string(),
  amount: z.number().nullable(),
  items: z.array(z.unknown()).nullable(),
  product: z.string().nullable(),
  success_url: z.string().nullable(),
  cancel_url: z.string().nullable(),
  locale: z.enum(LOCALES).nullable(),
  form_fields: z.array(z.unknown()).nullable(),
  allow_custom_amount: z.boolean(),
  minimum_amount: z.number().nullable(),
  save_payment_method: z.boolean(),
  business_invoice: z.object({ enabled: z.boolean() }),
  subscription_data: z
    .object({ trial_period_days: z.number().nullable(), metadata: z.record(z.string(), z.string()) })
    .nullable(),
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
    mode: t.mode ?? 'payment',
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
    business_invoice: { enabled: t.business_invoice?.enabled ?? false },
    subscription_data:
      t.mode === 'subscription'
        ? {
            trial_period_days: t.subscription_data?.trial_period_days ?? null,
            metadata: t.subscription_data?.metadata ?? {},
          }
        : null,
    completed_sessions_limit: row.completed_sessions_limit,
    completed_sessions_count: row.completed_sessions_count,
    metadata: row.metadata,
    created_at: unix(row.created_at),
  };
}
