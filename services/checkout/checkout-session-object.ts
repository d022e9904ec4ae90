import type { CheckoutSessionRow } from '../../db/checkout-sessions';
import { unix } from '../../domain/unix-time';

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
    items: row.items,
    form_fields: row.form_fields,
    custom_fields: row.custom_fields,
    allow_custom_amount: row.allow_custom_amount,
    minimum_amount: row.minimum_amount,
    expires_at: unix(row.expires_at),
    created_at: unix(row.created_at),
    metadata: row.metadata,
  };
}
