import type { VatRate } from '../../domain/vat';
import type { FormField } from '../../domain/checkout';
import type { Locale } from '../../domain/locale';
import type { Wallet } from '../../adapters/acquirers/card-acquirer';
import type { CheckoutSessionRow } from '../../db/checkout-sessions';
import { InvalidRequestError } from '../../domain/errors';
import type { VatTreatmentInput } from '../vat-treatment';

export type ItemInput =
  | { product: string; variant?: string | undefined; quantity: number }
  | { price: string; quantity: number }
  | ({ description: string; unit_amount: number; vat_rate: VatRate; quantity: number } & VatTreatmentInput);

/** Stripe's `subscription_data`: the trial and metadata of the subscription a session creates. */
export interface SubscriptionDataInput {
  trial_period_days?: number | undefined;
  /** Epoch seconds. */
  trial_end?: number | undefined;
  metadata?: Record<string, string> | undefined;
}

export interface SessionInput {
  mode: 'payment' | 'setup' | 'subscription';
  subscription_data?: SubscriptionDataInput | undefined;
  amount?: number | undefined;
  items?: ItemInput[] | undefined;
  product?: string | undefined;
  success_url?: string | null | undefined;
  cancel_url?: string | null | undefined;
  customer?: string | null | undefined;
  customer_email?: string | null | undefined;
  customer_name?: string | null | undefined;
  customer_phone?: string | null | undefined;
  save_payment_method: boolean;
  business_invoice?: { enabled: boolean } | undefined;
  locale?: Locale | null | undefined;
  form_fields?: FormField[] | null | undefined;
  allow_custom_amount: boolean;
  minimum_amount?: number | null | undefined;
  promotion_code?: string | undefined;
  metadata?: Record<string, string> | null | undefined;
  paymentLinkId?: string | null;
  /** Offer a pickup-point step with these carriers' points (decision 0134). */
  pickup_point_carriers?: string[] | undefined;
  /** A pickup point chosen already (by the merchant, or a platform order). */
  pickup_point?: string | undefined;
}

/** What the buyer submitted on the checkout page. */
export interface PayInput {
  fields: Record<string, string>;
  customAmount?: string | undefined;
  card?: { number: string; exp_month: number; exp_year: number; cvc: string } | undefined;
  wallet?: Wallet | undefined;
  /** "Invoice to a company", as the buyer filled it in; unset when not asked for (decision 0212). */
  business?: Record<'kennitala' | 'name' | 'line1' | 'postal_code' | 'city', string> | undefined;
  /** Where the buyer comes back after a 3-D Secure challenge. */
  returnUrl: string;
}

export type PayOutcome =
  | { kind: 'complete'; session: CheckoutSessionRow }
  | { kind: 'closed'; session: CheckoutSessionRow }
  | { kind: 'invalid'; errors: Record<string, string> }
  | { kind: 'declined'; message: string; session: CheckoutSessionRow }
  | { kind: 'action'; url: string };

export const bad = (message: string, param: string) =>
  new InvalidRequestError(message, { code: 'parameter_invalid', param });
