import type { Db } from './knex';
import type { Scope } from '../domain/scope';
import type { FormField } from '../domain/checkout';
import type { Locale } from '../domain/locale';
import type { VatRate } from '../domain/vat';
import type { VatTreatment } from '../domain/vat-category';
import type { PickupPoint } from '../domain/delivery';
import { newId, ID_PREFIX, randomBase62 } from '../domain/ids';
import { SESSION_LIFETIME_MS } from '../domain/checkout';
import { pageByCreated } from './pagination';
import { existsInOtherMode, type PageOptions } from './tenant';

/** A stored item; items stored before decision 0234 lack the VAT category fields (read them with vatTreatmentOf). */
export interface LineItem extends Partial<VatTreatment> {
  id: string;
  product_id: string | null;
  variant_id: string | null;
  description: string;
  quantity: number;
  unit_amount: number;
  vat_rate: VatRate;
}

export interface SubscriptionData {
  price: string;
  quantity: number;
  trial_period_days: number | null;
  /** ISO instant. */
  trial_end: string | null;
  metadata: Record<string, string>;
}

/** A company the buyer gave on the checkout: what a business invoice needs (decision 0210). */
export interface BusinessBuyer {
  kennitala: string;
  name: string;
  line1: string;
  postal_code: string;
  city: string;
}

export interface CheckoutSessionRow {
  id: string;
  merchant_id: string;
  livemode: boolean;
  mode: 'payment' | 'setup' | 'subscription';
  status: 'open' | 'complete' | 'expired';
  payment_status: 'paid' | 'awaiting_claim' | 'unpaid' | 'no_payment_required';
  amount: number;
  amount_subtotal: number;
  discount_amount: number;
  promotion_code_id: string | null;
  currency: 'ISK';
  short_code: string;
  success_url: string | null;
  cancel_url: string | null;
  save_payment_method: boolean;
  customer_id: string | null;
  product_id: string | null;
  subscription_id: string | null;
  payment_intent_id: string | null;
  payment_method_id: string | null;
  customer_email: string | null;
  customer_name: string | null;
  customer_phone: string | null;
  locale: Locale | null;
  items: LineItem[];
  form_fields: FormField[] | null;
  custom_fields: Record<string, string> | null;
  allow_custom_amount: boolean;
  minimum_amount: number | null;
  payment_link_id: string | null;
  metadata: Record<string, string> | null;
  /** What a `subscription` session subscribes to; null in other modes (decision 0050). */
  subscription_data: SubscriptionData | null;
  /** Carriers whose pickup points the checkout offers; null: no pickup-point step (decision 0134). */
  pickup_point_carriers: string[] | null;
  /** The pickup point chosen (by the merchant at creation, or the buyer on the page). */
  pickup_point: PickupPoint | null;
  /** The page offers "invoice to a company" (decision 0212). */
  business_invoice: boolean;
  /** The company the buyer asked to be invoiced, until completion makes it the session's customer. */
  business_buyer: BusinessBuyer | null;
  expires_at: Date;
  completed_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export type NewSession = Omit<
  CheckoutSessionRow,
  | 'id'
  | 'merchant_id'
  | 'livemode'
  | 'status'
  | 'payment_status'
  | 'currency'
  | 'short_code'
  | 'subscription_id'
  | 'payment_intent_id'
  | 'payment_method_id'
  | 'custom_fields'
  | 'business_buyer'
  | 'expires_at'
  | 'completed_at'
  | 'created_at'
  | 'updated_at'
>;

const JSON_COLUMNS = [
  'items',
  'form_fields',
  'custom_fields',
  'metadata',
  'subscription_data',
  'pickup_point',
  'business_buyer',
] as const;

/** jsonb columns written as JSON text (an array would otherwise become a PostgreSQL array). */
function jsonColumns<T extends Partial<Record<(typeof JSON_COLUMNS)[number], unknown>>>(row: T): T {
  const out: Record<string, unknown> = { ...row };
  for (const c of JSON_COLUMNS) if (out[c] !== undefined && out[c] !== null) out[c] = JSON.stringify(out[c]);
  return out as T;
}

export function createCheckoutSessionRepository(db: Db) {
  const scoped = (scope: Scope, trx: Db) =>
    trx<CheckoutSessionRow>('checkout_sessions').where({
      merchant_id: scope.merchantId,
      livemode: scope.livemode,
    });

  return {
    async create(scope: Scope, input: NewSession, trx: Db = db): Promise<CheckoutSessionRow> {
      const now = new Date();
      const [row] = await trx<CheckoutSessionRow>('checkout_sessions')
        .insert(
          jsonColumns({
            ...input,
            id: newId(ID_PREFIX.checkoutSession),
            merchant_id: scope.merchantId,
            livemode: scope.livemode,
            short_code: randomBase62(10),
            created_at: now,
            updated_at: now,
            expires_at: new Date(now.getTime() + SESSION_LIFETIME_MS),
          }),
        )
        .returning('*');
      return row!;
    },

    /** Expires an open session now (its order was cancelled elsewhere); false when not open. */
    async expireOpen(scope: Scope, id: string, trx: Db = db): Promise<boolean> {
      const n = await scoped(scope, trx)
        .where({ id, status: 'open' })
        .update({ status: 'expired', updated_at: trx.fn.now() as never });
      return n > 0;
    },

    /** Moves an open session past its expiry to `expired` (the lazy half of expiry). */
    async expireIfDue(id: string, trx: Db = db): Promise<void> {
      await trx('checkout_sessions')
        .where({ id, status: 'open' })
        .where('expires_at', '<=', trx.fn.now())
        .update({ status: 'expired', updated_at: trx.fn.now() });
    },

    async findById(scope: Scope, id: string, trx: Db = db): Promise<CheckoutSessionRow | undefined> {
      await this.expireIfDue(id, trx);
      return scoped(scope, trx).where({ id }).first();
    },

    /** By id alone, for the public checkout page (the id in the URL is the capability). */
    async findPublic(id: string, trx: Db = db): Promise<CheckoutSessionRow | undefined> {
      await this.expireIfDue(id, trx);
      return trx<CheckoutSessionRow>('checkout_sessions').where({ id }).first();
    },

    /** The session locked for a payment attempt: a second attempt waits, then sees the outcome. */
    async lockPublic(id: string, trx: Db): Promise<CheckoutSessionRow | undefined> {
      await this.expireIfDue(id, trx);
      return trx<CheckoutSessionRow>('checkout_sessions').where({ id }).forUpdate().first();
    },

    async findByShortCode(code: string, trx: Db = db): Promise<CheckoutSessionRow | undefined> {
      return trx<CheckoutSessionRow>('checkout_sessions').where({ short_code: code }).first();
    },

    existsInOtherMode: (scope: Scope, id: string, trx: Db = db) =>
      existsInOtherMode(trx, 'checkout_sessions', scope, id),

    async list(scope: Scope, opts: PageOptions, trx: Db = db) {
      return pageByCreated<CheckoutSessionRow>(scoped(scope, trx), 'checkout_sessions', scope, opts);
    },

    async update(id: string, patch: Partial<CheckoutSessionRow>, trx: Db = db): Promise<CheckoutSessionRow> {
      const [row] = await trx<CheckoutSessionRow>('checkout_sessions')
        .where({ id })
        .update(jsonColumns({ ...patch, updated_at: new Date() }))
        .returning('*');
      return row!;
    },

    /** Moves the payment status from `from` to `to`; undefined when it was not `from`. */
    async movePaymentStatus(
      scope: Scope,
      id: string,
      from: CheckoutSessionRow['payment_status'],
      to: CheckoutSessionRow['payment_status'],
      trx: Db,
    ): Promise<CheckoutSessionRow | undefined> {
      const [row] = await scoped(scope, trx)
        .where({ id, payment_status: from })
        .update({ payment_status: to, updated_at: new Date() })
        .returning('*');
      return row;
    },

    /** Removes a session that was only made to check a payment link's template (never shown). */
    async deleteProbe(id: string, trx: Db = db): Promise<void> {
      await trx('checkout_sessions').where({ id }).delete();
    },

    /** The periodic sweep: every open session past its expiry becomes `expired`, in one statement. */
    async expireDue(now: Date = new Date(), trx: Db = db): Promise<number> {
      const rows = await trx('checkout_sessions')
        .where({ status: 'open' })
        .where('expires_at', '<=', now)
        .update({ status: 'expired', updated_at: now })
        .returning('id');
      return rows.length;
    },
  };
}

export type CheckoutSessionRepository = ReturnType<typeof createCheckoutSessionRepository>;
