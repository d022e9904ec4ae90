import type { Db } from './knex';
import { finishedRenewal, type FinishedRenewal } from './renewals';

const RENEWAL_COLUMNS = [
  'id',
  'subscription_id',
  'period_index',
  'period_start',
  'period_end',
  'price_id',
  'amount',
  'amount_subtotal',
  'discount_amount',
  'vat_amount',
  'proration_amount',
  'attempt_count',
  'payment_intent_id',
  'status',
] as const;

/** What a subscription waiting for a krafa needs to know of it. */
export interface ClaimState {
  id: string;
  status: string;
  cancellation_date: string;
  renewal_id: string | null;
  /** The bank refused it at issuance (a pending claim with the bank's error, decision 0103). */
  refused: boolean;
}

/**
 * The reads a subscription's lifecycle decides on besides the subscription row: its latest
 * renewal and whether its payment method is still attached.
 */
export function createSubscriptionLifecycleRepository(db: Db) {
  return {
    /** The renewal of the latest period, if any: its status and how many charges it took. */
    async latestRenewal(
      subscriptionId: string,
      trx: Db = db,
    ): Promise<{ status: string; attempt_count: number } | undefined> {
      return trx('renewals')
        .where({ subscription_id: subscriptionId })
        .orderBy('period_index', 'desc')
        .first<{ status: string; attempt_count: number } | undefined>('status', 'attempt_count');
    },

    /** The renewal of the latest period, whole (as events present it). */
    async latestRenewalRow(subscriptionId: string, trx: Db = db): Promise<FinishedRenewal | undefined> {
      const row = await trx('renewals')
        .where({ subscription_id: subscriptionId })
        .orderBy('period_index', 'desc')
        .first<FinishedRenewal | undefined>(...RENEWAL_COLUMNS);
      return row && finishedRenewal(row);
    },

    /** A renewal by id, whole. */
    async renewalById(renewalId: string, trx: Db = db): Promise<FinishedRenewal | undefined> {
      const row = await trx('renewals')
        .where({ id: renewalId })
        .first<FinishedRenewal | undefined>(...RENEWAL_COLUMNS);
      return row && finishedRenewal(row);
    },

    /** Moves a renewal between statuses; false when it was not in one of `from`. */
    async moveRenewal(
      renewalId: string,
      from: readonly string[],
      to: string,
      trx: Db = db,
    ): Promise<boolean> {
      const n = await trx('renewals')
        .where({ id: renewalId })
        .whereIn('status', from)
        .update({ status: to, updated_at: new Date() });
      return n > 0;
    },

    /** Whether a krafa was ever made for the renewal (one per renewal: `claims.renewal_id` is unique). */
    async renewalHasClaim(renewalId: string, trx: Db = db): Promise<boolean> {
      return (
        (await trx('claims').where({ renewal_id: renewalId }).first<{ id: string } | undefined>('id')) !==
        undefined
      );
    },

    /** A krafa's state (the krafa a subscription waits for, decision 0105). */
    async claimState(claimId: string, trx: Db = db): Promise<ClaimState | undefined> {
      const row = await trx('claims')
        .where({ id: claimId })
        .first<(Omit<ClaimState, 'refused'> & { bank_error: unknown }) | undefined>(
          'id',
          'status',
          'cancellation_date',
          'renewal_id',
          'bank_error',
        );
      if (!row) return undefined;
      const { bank_error, ...rest } = row;
      return { ...rest, refused: bank_error !== null };
    },

    /** Whether a krafa collecting one of the subscription's renewals ended unpaid (expired, cancelled). */
    async hasEndedClaim(subscriptionId: string, trx: Db = db): Promise<boolean> {
      const row = await trx('claims')
        .join('renewals', 'renewals.id', 'claims.renewal_id')
        .where('renewals.subscription_id', subscriptionId)
        .whereIn('claims.status', ['expired', 'cancelled'])
        .first<{ id: string } | undefined>('claims.id');
      return row !== undefined;
    },

    /** Whether the payment method exists and is not detached. */
    async isAttached(paymentMethodId: string, trx: Db = db): Promise<boolean> {
      const pm = await trx('payment_methods')
        .where({ id: paymentMethodId })
        .whereNull('detached_at')
        .first<{ id: string } | undefined>('id');
      return pm !== undefined;
    },
  };
}

export type SubscriptionLifecycleRepository = ReturnType<typeof createSubscriptionLifecycleRepository>;
