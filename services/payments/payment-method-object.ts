import { z } from 'zod';
import type { PaymentMethodRow } from '../../db/payment-methods';
import { unix } from '../../domain/unix-time';

export const PaymentMethodSchema = z.object({
  id: z.string(),
  object: z.literal('payment_method'),
  livemode: z.boolean(),
  type: z.literal('card'),
  customer: z.string().nullable(),
  card: z.object({
    brand: z.string(),
    last4: z.string(),
    exp_month: z.number(),
    exp_year: z.number(),
    wallet: z.enum(['apple_pay', 'google_pay']).nullable(),
  }),
  created_at: z.number(),
});

export function presentPaymentMethod(row: PaymentMethodRow) {
  return {
    id: row.id,
    object: 'payment_method' as const,
    livemode: row.livemode,
    type: 'card' as const,
    customer: row.customer_id,
    card: {
      brand: row.card_brand,
      last4: row.card_last4,
      exp_month: row.card_exp_month,
      exp_year: row.card_exp_year,
      wallet: row.wallet,
    },
    created_at: unix(row.created_at),
  };
}

/** What setting a customer's default payment method answers: the customer, reduced to that field. */
export const CustomerDefaultPaymentMethodSchema = z.object({
  id: z.string(),
  object: z.literal('customer'),
  default_payment_method: z.string(),
});

export function presentCustomerDefaultPaymentMethod(customerId: string, paymentMethodId: string) {
  return { id: customerId, object: 'customer' as const, default_payment_method: paymentMethodId };
}
