import type { Db, Knex } from './knex';
import { claimSessionUnpaid, type ClaimRow } from './claims';

/** A claim transaction as the bank reported it, keyed once by its identity. */
export interface NewClaimTransaction {
  claimId: string;
  bankTransactionKey: string;
  paymentType: string;
  amount: number;
  /** The bank's transaction, kept whole. */
  data: unknown;
}

/**
 * What the claim payments sync reads back from the bank: transactions, cancellations at the bank,
 * and what a paid claim settles (its subscription renewal, its checkout session). The bank reports
 * claims of every merchant, so these are keyed by claim (the claim row carries its scope).
 */
export function createClaimPaymentRepository(db: Db) {
  return {
    /** Claims still unpaid (issued or partly paid) due on or after `dateFrom`. */
    async listUnpaidDueSince(
      dateFrom: string,
      livemode: boolean,
      trx: Db = db,
    ): Promise<Pick<ClaimRow, 'id' | 'bank_claim_id'>[]> {
      return trx<ClaimRow>('claims')
        .where({ livemode })
        .whereIn('status', ['issued', 'partially_paid'])
        .where('due_date', '>=', dateFrom)
        .orderBy('id')
        .select('id', 'bank_claim_id');
    },

    /**
     * Marks an unpaid claim cancelled (at the bank) and its checkout session unpaid, in one
     * transaction; false if it no longer is unpaid.
     */
    async markCancelledAtBank(claimId: string, trx: Knex.Transaction): Promise<ClaimRow | undefined> {
      const now = new Date();
      const [row] = await trx<ClaimRow>('claims')
        .where({ id: claimId })
        .whereIn('status', ['issued', 'partially_paid'])
        .update({ status: 'cancelled', cancelled_at: now, updated_at: now })
        .returning('*');
      if (row?.checkout_session_id) await claimSessionUnpaid(trx, row.checkout_session_id);
      return row;
    },

    /** The claim with this bank claim id, locked until the transaction ends. */
    /** The claim a bank's transaction names, in the environment of that bank (decision 0177). */
    async lockByBankClaimId(
      bankClaimId: string,
      livemode: boolean,
      trx: Knex.Transaction,
    ): Promise<ClaimRow | undefined> {
      return trx<ClaimRow>('claims').where({ bank_claim_id: bankClaimId, livemode }).forUpdate().first();
    },

    /** Records a bank transaction once (unique key); false when it was recorded before. */
    async recordTransaction(t: NewClaimTransaction, trx: Knex.Transaction): Promise<boolean> {
      const inserted = await trx('claim_transactions')
        .insert({
          claim_id: t.claimId,
          bank_transaction_key: t.bankTransactionKey,
          payment_type: t.paymentType,
          amount: t.amount,
          data: JSON.stringify(t.data),
        })
        .onConflict('bank_transaction_key')
        .ignore()
        .returning('id');
      return inserted.length > 0;
    },

    async update(claimId: string, patch: Partial<ClaimRow>, trx: Knex.Transaction): Promise<ClaimRow> {
      const [row] = await trx<ClaimRow>('claims').where({ id: claimId }).update(patch).returning('*');
      return row!;
    },

    /**
     * The subscription renewal a paid claim collects is paid with the claim's intent (decision
     * 0064), and the intent is tied to the renewal's subscription. A renewal whose card failed before
     * its krafa (decision 0105) leaves its card intent canceled: the krafa took the money.
     */
    async payRenewal(
      renewalId: string,
      paymentIntentId: string | null,
      now: Date,
      trx: Knex.Transaction,
    ): Promise<void> {
      await trx('payment_intents')
        .whereIn(
          'id',
          trx('renewals').where({ id: renewalId, status: 'awaiting_claim' }).select('payment_intent_id'),
        )
        .where({ status: 'requires_payment_method' })
        .update({
          status: 'canceled',
          canceled_at: now,
          cancellation_reason: 'paid_by_claim',
          updated_at: now,
        });
      await trx('renewals').where({ id: renewalId, status: 'awaiting_claim' }).update({
        status: 'paid',
        paid_at: now,
        payment_intent_id: paymentIntentId,
        updated_at: now,
      });
      await trx('payment_intents')
        .where({ id: paymentIntentId })
        .update({
          subscription_id: trx('renewals').where({ id: renewalId }).select('subscription_id'),
        });
    },

    /** The checkout session a paid claim pays is paid (decision 0063). */
    async markSessionPaid(
      sessionId: string,
      paymentIntentId: string | null,
      now: Date,
      trx: Knex.Transaction,
    ): Promise<void> {
      await trx('checkout_sessions')
        .where({ id: sessionId })
        .whereNot({ payment_status: 'paid' })
        .update({ payment_status: 'paid', payment_intent_id: paymentIntentId, updated_at: now });
    },
  };
}

export type ClaimPaymentRepository = ReturnType<typeof createClaimPaymentRepository>;
