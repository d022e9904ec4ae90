import type { Db } from './knex';
import type { Scope } from '../domain/scope';
import type { FormField } from '../domain/checkout';
import type { Locale } from '../domain/locale';
import type { VatRate } from '../domain/vat';
import type { VatCategory } from '../domain/vat-category';
import { newId, ID_PREFIX } from '../domain/ids';
import { pageByCreated } from './pagination';
import { existsInOtherMode, type PageOptions } from './tenant';

/** A line of a link's template, as the merchant sent it (resolved into a line item per session). */
export type TemplateItem =
  | { product: string; variant?: string | undefined; quantity: number }
  | { price: string; quantity: number }
  | {
      description: string;
      unit_amount: number;
      vat_rate: VatRate;
      quantity: number;
      /** Decision 0234. */
      vat_category?: VatCategory | null | undefined;
      vat_exemption_reason?: string | null | undefined;
      vat_exemption_reason_code?: string | null | undefined;
    };

/** The session template a link opens a checkout session from, as stored (JSON). */
export interface PaymentLinkTemplate {
  /** Absent on links made before subscription links: payment. */
  mode?: 'payment' | 'subscription' | undefined;
  subscription_data?:
    { trial_period_days?: number | undefined; metadata?: Record<string, string> | undefined } | undefined;
  amount?: number | undefined;
  items?: TemplateItem[] | undefined;
  product?: string | undefined;
  success_url?: string | null | undefined;
  cancel_url?: string | null | undefined;
  save_payment_method: boolean;
  /** Absent on links made before it: not offered (decision 0212). */
  business_invoice?: { enabled: boolean } | undefined;
  locale?: Locale | null | undefined;
  form_fields?: FormField[] | null | undefined;
  allow_custom_amount: boolean;
  minimum_amount?: number | null | undefined;
}

export interface PaymentLinkRow {
  id: string;
  merchant_id: string;
  livemode: boolean;
  active: boolean;
  template: PaymentLinkTemplate;
  completed_sessions_limit: number | null;
  completed_sessions_count: number;
  metadata: Record<string, string>;
  created_at: Date;
  updated_at: Date;
}

/** Payment links: deactivated, never deleted, because sessions and payments refer to them. */
export function createPaymentLinkRepository(db: Db) {
  const scoped = (scope: Scope, trx: Db) =>
    trx<PaymentLinkRow>('payment_links').where({ merchant_id: scope.merchantId, livemode: scope.livemode });

  return {
    async create(
      scope: Scope,
      input: {
        template: PaymentLinkTemplate;
        completedSessionsLimit: number | null;
        metadata: Record<string, string>;
      },
      trx: Db = db,
    ): Promise<PaymentLinkRow> {
      const [row] = await trx<PaymentLinkRow>('payment_links')
        .insert({
          id: newId(ID_PREFIX.paymentLink),
          merchant_id: scope.merchantId,
          livemode: scope.livemode,
          template: JSON.stringify(input.template) as never,
          completed_sessions_limit: input.completedSessionsLimit,
          metadata: input.metadata,
        })
        .returning('*');
      return row!;
    },

    async findById(scope: Scope, id: string, trx: Db = db): Promise<PaymentLinkRow | undefined> {
      return scoped(scope, trx).where({ id }).first();
    },

    /** By id alone, for a visit to the link's public URL. */
    async findPublic(id: string, trx: Db = db): Promise<PaymentLinkRow | undefined> {
      return trx<PaymentLinkRow>('payment_links').where({ id }).first();
    },

    existsInOtherMode: (scope: Scope, id: string, trx: Db = db) =>
      existsInOtherMode(trx, 'payment_links', scope, id),

    async list(scope: Scope, opts: PageOptions & { active?: boolean | undefined }, trx: Db = db) {
      const q = scoped(scope, trx);
      if (opts.active !== undefined) q.where({ active: opts.active });
      return pageByCreated<PaymentLinkRow>(q, 'payment_links', scope, opts);
    },

    async update(
      scope: Scope,
      id: string,
      patch: Partial<Pick<PaymentLinkRow, 'active' | 'completed_sessions_limit' | 'metadata'>>,
      trx: Db = db,
    ): Promise<PaymentLinkRow> {
      const [row] = await scoped(scope, trx)
        .where({ id })
        .update({ ...patch, updated_at: new Date() })
        .returning('*');
      return row!;
    },

    /**
     * Counts a completed session against the link, in the completion's transaction; false when the
     * link is inactive or at its limit (the check and the count are one statement).
     */
    async countCompletion(id: string, trx: Db): Promise<boolean> {
      const rows = await trx('payment_links')
        .where({ id, active: true })
        .andWhere((q) =>
          q
            .whereNull('completed_sessions_limit')
            .orWhereRaw('completed_sessions_count < completed_sessions_limit'),
        )
        .increment('completed_sessions_count', 1)
        .returning('id');
      return rows.length === 1;
    },

    /** Gives back one completion counted by a session whose payment never came (decision 0103). */
    async uncountCompletion(id: string, trx: Db): Promise<void> {
      await trx('payment_links')
        .where({ id })
        .where('completed_sessions_count', '>', 0)
        .decrement('completed_sessions_count', 1);
    },
  };
}
