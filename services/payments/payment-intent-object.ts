import { z } from 'zod';
import type { PaymentIntentRow } from '../../db/payment-intents';
import type { PaymentMethodRow } from '../../db/payment-methods';
import { unix } from '../../domain/unix-time';

// The payment intent as the API returns it and as webhook events carry it in `data`: the schema
// documents it in the OpenAPI document, the presenter builds exactly those fields from a row.

export const PaymentIntentSchema = z.object({
  id: z.string(),
  object: z.literal('payment_intent'),
  livemode: z.boolean(),
  amount: z.number(),
  amount_capturable: z.number(),
  amount_received: z.number(),
  amount_refunded: z.number(),
  disputed: z.boolean().describe('Whether the cardholder’s bank disputed this payment (decision 0156)'),
  dispute: z.string().nullable().describe('The dispute opened on this payment'),
  currency: z.literal('ISK'),
  status: z.enum([
    'requires_payment_method',
    'requires_action',
    'requires_capture',
    'processing',
    'succeeded',
    'canceled',
  ]),
  capture_method: z.enum(['automatic', 'manual']),
  customer: z.string().nullable(),
  payment_method: z.string().nullable(),
  payment_method_details: z
    .object({
      type: z.literal('card'),
      card: z.object({
        brand: z.string(),
        last4: z.string(),
        exp_month: z.number(),
        exp_year: z.number(),
        wallet: z.enum(['apple_pay', 'google_pay']).nullable(),
      }),
    })
    .nullable(),
  checkout_session: z.string().nullable(),
  subscription: z.string().nullable().describe('The subscription whose sign-up or renewal this payment is'),
  description: z.string().nullable(),
  fee_amount: z.number().nullable().describe('Service fee (1.5 % online card), set at capture'),
  net_amount: z.number().nullable().describe('amount_received − fee_amount'),
  last_payment_error: z
    .object({ code: z.string(), decline_code: z.string().nullable(), message: z.string() })
    .nullable(),
  next_action: z
    .object({
      type: z.literal('redirect_to_url'),
      redirect_to_url: z.object({ url: z.string(), return_url: z.string().nullable() }),
    })
    .nullable()
    .describe('With status requires_action: where to send the customer for 3-D Secure'),
  canceled_at: z.number().nullable(),
  cancellation_reason: z.string().nullable(),
  created_at: z.number(),
  metadata: z.record(z.string(), z.string()),
});

/** The payment intent object; `pm` (its payment method, if any) fills payment_method_details. */
export function presentPaymentIntent(row: PaymentIntentRow, pm?: PaymentMethodRow | null) {
  return {
    id: row.id,
    object: 'payment_intent' as const,
    livemode: row.livemode,
    amount: row.amount,
    amount_capturable: row.status === 'requires_capture' ? row.amount : 0,
    amount_received: row.amount_captured,
    amount_refunded: row.amount_refunded,
    disputed: (row.dispute_id ?? null) !== null,
    dispute: row.dispute_id ?? null,
    currency: row.currency,
    status: row.status,
    capture_method: row.capture_method,
    customer: row.customer_id,
    payment_method: row.payment_method_id,
    payment_method_details: pm
      ? {
          type: 'card' as const,
          card: {
            brand: pm.card_brand,
            last4: pm.card_last4,
            exp_month: pm.card_exp_month,
            exp_year: pm.card_exp_year,
            wallet: pm.wallet,
          },
        }
      : null,
    checkout_session: row.checkout_session_id,
    subscription: row.subscription_id,
    description: row.description,
    fee_amount: row.fee_amount,
    net_amount: row.fee_amount === null ? null : row.amount_captured - row.fee_amount,
    last_payment_error: row.last_payment_error,
    next_action:
      row.status === 'requires_action' && row.next_action_url
        ? {
            type: 'redirect_to_url' as const,
            redirect_to_url: { url: row.next_action_url, return_url: row.return_url },
          }
        : null,
    canceled_at: unix(row.canceled_at),
    cancellation_reason: row.cancellation_reason,
    created_at: unix(row.created_at),
    metadata: row.metadata,
  };
}
