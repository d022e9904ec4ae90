import type { Db } from './knex';
import type { Scope } from '../domain/scope';
import type { PaymentChannel } from '../domain/fees';
import { newId, ID_PREFIX } from '../domain/ids';
import { pageByCreated } from './pagination';
import { existsInOtherMode, type PageOptions } from './tenant';

export type PaymentIntentStatus =
  | 'requires_payment_method'
  | 'requires_action'
  | 'requires_capture'
  | 'processing'
  | 'succeeded'
  | 'canceled';

export interface PaymentError {
  code: string;
  decline_code: string | null;
  message: string;
}

export interface PaymentIntentRow {
  id: string;
  merchant_id: string;
  livemode: boolean;
  amount: number;
  currency: 'ISK';
  status: PaymentIntentStatus;
  capture_method: 'automatic' | 'manual';
  channel: PaymentChannel;
  customer_id: string | null;
  payment_method_id: string | null;
  checkout_session_id: string | null;
  /** The subscription whose sign-up or renewal this payment is. */
  subscription_id: string | null;
  description: string | null;
  attempt_count: number;
  acquirer_authorization: string | null;
  next_action_url: string | null;
  return_url: string | null;
  last_payment_error: PaymentError | null;
  amount_captured: number;
  amount_refunded: number;
  /** The dispute the cardholder's bank opened on this payment (decision 0156). */
  dispute_id: string | null;
  fee_amount: number | null;
  captured_at: Date | null;
  canceled_at: Date | null;
  cancellation_reason: string | null;
  metadata: Record<string, string>;
  created_at: Date;
  updated_at: Date;
}

/** The dashboard's payment list filters (the API lists by customer only). */
export interface PaymentIntentFilter {
  customerId?: string;
  status?: PaymentIntentRow['status'];
  search?: string;
}

export interface RefundRow {
  id: string;
  merchant_id: string;
  livemode: boolean;
  payment_intent_id: string;
  amount: number;
  currency: 'ISK';
  /** `pending`: a krafa's refund whose credit transfer the bank has not booked yet (decision 0101). */
  status: 'pending' | 'succeeded' | 'failed';
  reason: 'duplicate' | 'fraudulent' | 'requested_by_customer' | null;
  idempotency_key: string;
  acquirer_reference: string | null;
  /** A krafa's refund goes back to the payer's account (12 digits; null until the bank named it). */
  destination_account: string | null;
  destination_kennitala: string | null;
  destination_name: string | null;
  succeeded_at: Date | null;
  metadata: Record<string, string>;
  created_at: Date;
}

/** The columns a new refund sets; a card refund leaves the destination and succeeded_at unset. */
export type NewRefundRow = Omit<
  RefundRow,
  | 'created_at'
  | 'currency'
  | 'metadata'
  | 'destination_account'
  | 'destination_kennitala'
  | 'destination_name'
  | 'succeeded_at'
> &
  Partial<
    Pick<RefundRow, 'destination_account' | 'destination_kennitala' | 'destination_name' | 'succeeded_at'>
  >;

export interface NewPaymentIntent {
  amount: number;
  captureMethod: 'automatic' | 'manual';
  channel?: PaymentChannel;
  customerId?: string | null;
  paymentMethodId?: string | null;
  checkoutSessionId?: string | null;
  description?: string | null;
  metadata?: Record<string, string>;
}

export function createPaymentIntentRepository(db: Db) {
  const scoped = (scope: Scope, trx: Db) =>
    trx<PaymentIntentRow>('payment_intents').where({
      merchant_id: scope.merchantId,
      livemode: scope.livemode,
    });

  return {
    async create(scope: Scope, input: NewPaymentIntent, trx: Db = db): Promise<PaymentIntentRow> {
      const [row] = await trx<PaymentIntentRow>('payment_intents')
        .insert({
          id: newId(ID_PREFIX.paymentIntent),
          merchant_id: scope.merchantId,
          livemode: scope.livemode,
          amount: input.amount,
          status: 'requires_payment_method',
          capture_method: input.captureMethod,
          channel: input.channel ?? 'online',
          customer_id: input.customerId ?? null,
          payment_method_id: input.paymentMethodId ?? null,
          checkout_session_id: input.checkoutSessionId ?? null,
          description: input.description ?? null,
          metadata: input.metadata ?? {},
        })
        .returning('*');
      return row!;
    },

    async findById(scope: Scope, id: string, trx: Db = db): Promise<PaymentIntentRow | undefined> {
      return scoped(scope, trx).where({ id }).first();
    },

    /** Intents by id, of any merchant (a batch's own ids), e.g. to present them in events. */
    async findByIds(ids: readonly string[], trx: Db = db): Promise<PaymentIntentRow[]> {
      if (ids.length === 0) return [];
      return trx<PaymentIntentRow>('payment_intents').whereIn('id', [...ids]);
    },

    /** The intent locked for a state change: concurrent confirms, captures and refunds queue here. */
    async lock(scope: Scope, id: string, trx: Db): Promise<PaymentIntentRow | undefined> {
      return scoped(scope, trx).where({ id }).forUpdate().first();
    },

    async findBySession(scope: Scope, sessionId: string, trx: Db = db) {
      return scoped(scope, trx).where({ checkout_session_id: sessionId }).forUpdate().first();
    },

    existsInOtherMode: (scope: Scope, id: string, trx: Db = db) =>
      existsInOtherMode(trx, 'payment_intents', scope, id),

    async list(scope: Scope, opts: PageOptions & PaymentIntentFilter, trx: Db = db) {
      const q = scoped(scope, trx);
      if (opts.customerId !== undefined) q.where({ customer_id: opts.customerId });
      if (opts.status !== undefined) q.where({ status: opts.status });
      if (opts.search) {
        // An id exactly, or words of the description, in any letter case.
        const like = `%${opts.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
        const search = opts.search;
        q.where((w) => w.where({ id: search }).orWhereILike('description', like));
      }
      return pageByCreated<PaymentIntentRow>(q, 'payment_intents', scope, opts);
    },

    async update(id: string, patch: Partial<PaymentIntentRow>, trx: Db): Promise<PaymentIntentRow> {
      const values: Record<string, unknown> = { ...patch, updated_at: new Date() };
      if (patch.last_payment_error) values.last_payment_error = JSON.stringify(patch.last_payment_error);
      const [row] = await trx<PaymentIntentRow>('payment_intents')
        .where({ id })
        .update(values)
        .returning('*');
      return row!;
    },

    async findRefundByKey(paymentIntentId: string, key: string, trx: Db): Promise<RefundRow | undefined> {
      return trx<RefundRow>('refunds')
        .where({ payment_intent_id: paymentIntentId, idempotency_key: key })
        .first();
    },

    async insertRefund(row: NewRefundRow, trx: Db): Promise<RefundRow> {
      const [inserted] = await trx<RefundRow>('refunds').insert(row).returning('*');
      return inserted!;
    },

    async findRefund(scope: Scope, id: string, trx: Db = db): Promise<RefundRow | undefined> {
      return trx<RefundRow>('refunds')
        .where({ id, merchant_id: scope.merchantId, livemode: scope.livemode })
        .first();
    },

    /** The refunds of several payment intents of the scope, oldest first. */
    async refundsOfIntents(scope: Scope, intentIds: readonly string[], trx: Db = db): Promise<RefundRow[]> {
      if (intentIds.length === 0) return [];
      return trx<RefundRow>('refunds')
        .where({ merchant_id: scope.merchantId, livemode: scope.livemode })
        .whereIn('payment_intent_id', intentIds)
        .orderBy([
          { column: 'created_at', order: 'asc' },
          { column: 'id', order: 'asc' },
        ]);
    },

    async listRefunds(scope: Scope, opts: PageOptions & { paymentIntentId?: string }, trx: Db = db) {
      const q = trx<RefundRow>('refunds').where({ merchant_id: scope.merchantId, livemode: scope.livemode });
      if (opts.paymentIntentId !== undefined) q.where({ payment_intent_id: opts.paymentIntentId });
      return pageByCreated<RefundRow>(q, 'refunds', scope, opts);
    },
  };
}

export type PaymentIntentRepository = ReturnType<typeof createPaymentIntentRepository>;
