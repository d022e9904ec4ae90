import type { Db } from './knex';

/** What a payment link visit needs of the link: whether it still sells, and what it sells. */
export interface PaymentLinkVisitRow {
  id: string;
  merchant_id: string;
  livemode: boolean;
  active: boolean;
  /** The session template, validated by the payment link API when it was stored. */
  template: Record<string, unknown>;
  completed_sessions_limit: number | null;
  completed_sessions_count: number;
}

export function createPaymentLinkRepository(db: Db) {
  return {
    /** A link by its public id, whatever its merchant and environment (the id is in its URL). */
    async findForVisit(id: string): Promise<PaymentLinkVisitRow | undefined> {
      return db<PaymentLinkVisitRow>('payment_links')
        .where({ id })
        .first(
          'id',
          'merchant_id',
          'livemode',
          'active',
          'template',
          'completed_sessions_limit',
          'completed_sessions_count',
        );
    },
  };
}

export type PaymentLinkRepository = ReturnType<typeof createPaymentLinkRepository>;
