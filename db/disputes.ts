import type { Db, Knex } from './knex';
import type { Scope } from '../domain/scope';
import type { DisputeReason, DisputeStatus } from '../domain/disputes';
import type { PaymentIntentRow } from './payment-intents';
import { disputeMovesFrom } from '../domain/disputes';
import { pageByCreated } from './pagination';
import { existsInOtherMode, type PageOptions } from './tenant';

export interface DisputeRow {
  id: string;
  merchant_id: string;
  livemode: boolean;
  payment_intent_id: string;
  acquirer_reference: string;
  amount: number;
  currency: 'ISK';
  reason: DisputeReason;
  status: DisputeStatus;
  evidence: Record<string, string> | null;
  evidence_submitted_at: Date | null;
  submission_count: number;
  evidence_due_by: Date;
  closed_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export type NewDispute = Pick<
  DisputeRow,
  | 'id'
  | 'merchant_id'
  | 'livemode'
  | 'payment_intent_id'
  | 'acquirer_reference'
  | 'amount'
  | 'reason'
  | 'status'
  | 'evidence_due_by'
  | 'closed_at'
>;

/** Disputes (decision 0156). Merchant access takes the Scope; the acquirer's side finds by its id. */
export function createDisputeRepository(db: Knex) {
  const scoped = (scope: Scope, trx: Db = db) =>
    trx<DisputeRow>('disputes').where({ merchant_id: scope.merchantId, livemode: scope.livemode });

  return {
    async findById(scope: Scope, id: string, trx: Db = db): Promise<DisputeRow | undefined> {
      return scoped(scope, trx).where({ id }).first();
    },

    existsInOtherMode: (scope: Scope, id: string) => existsInOtherMode(db, 'disputes', scope, id),

    async lock(scope: Scope, id: string, trx: Knex.Transaction): Promise<DisputeRow | undefined> {
      return scoped(scope, trx).where({ id }).forUpdate().first();
    },

    async list(scope: Scope, opts: PageOptions & { paymentIntentId?: string }, trx: Db = db) {
      const q = scoped(scope, trx);
      if (opts.paymentIntentId !== undefined) q.where({ payment_intent_id: opts.paymentIntentId });
      return pageByCreated<DisputeRow>(q, 'disputes', scope, opts);
    },

    /** The disputes of these payment intents (a payment page), oldest first. */
    async ofPaymentIntent(scope: Scope, paymentIntentId: string, trx: Db = db): Promise<DisputeRow[]> {
      return scoped(scope, trx).where({ payment_intent_id: paymentIntentId }).orderBy('created_at');
    },

    /**
     * Inserts the dispute unless the acquirer's id is known already: the unique acquirer_reference
     * makes a notification delivered twice, or twice at once, insert one row. Undefined: it existed.
     */
    async insertOnce(row: NewDispute, trx: Knex.Transaction): Promise<DisputeRow | undefined> {
      const [inserted] = await trx<DisputeRow>('disputes')
        .insert(row)
        .onConflict('acquirer_reference')
        .ignore()
        .returning('*');
      return inserted;
    },

    /**
     * The payment of an acquirer authorization, locked: copies of one notification queue on it. Across
     * merchants: the acquirer names its authorization, the payment's row gives the scope.
     */
    async lockPaymentOfAuthorization(
      authorization: string,
      trx: Knex.Transaction,
    ): Promise<PaymentIntentRow | undefined> {
      return trx<PaymentIntentRow>('payment_intents')
        .where({ acquirer_authorization: authorization })
        .forUpdate()
        .first();
    },

    /** Names the payment's dispute (its first one: a payment is disputed once). */
    async markPaymentDisputed(
      paymentIntentId: string,
      disputeId: string,
      trx: Knex.Transaction,
    ): Promise<void> {
      await trx('payment_intents')
        .where({ id: paymentIntentId })
        .whereNull('dispute_id')
        .update({ dispute_id: disputeId });
    },

    async findByAcquirerReference(reference: string, trx: Db = db): Promise<DisputeRow | undefined> {
      return trx<DisputeRow>('disputes').where({ acquirer_reference: reference }).first();
    },

    /**
     * Moves the dispute to `status` only from an earlier state (domain/disputes.ts), so a late or
     * repeated notification changes nothing; undefined when it did not move.
     */
    async move(
      id: string,
      status: DisputeStatus,
      patch: Partial<
        Pick<DisputeRow, 'evidence' | 'evidence_submitted_at' | 'submission_count' | 'closed_at'>
      >,
      trx: Knex.Transaction,
    ): Promise<DisputeRow | undefined> {
      const [row] = await trx<DisputeRow>('disputes')
        .where({ id })
        .whereIn('status', disputeMovesFrom(status))
        .update({ ...patch, status, updated_at: new Date() })
        .returning('*');
      return row;
    },
  };
}

export type DisputeRepository = ReturnType<typeof createDisputeRepository>;
