import type { Db, Knex } from './knex';
import type { Scope } from '../domain/scope';
import type {
  CreateClaimDetails,
  DefaultCharge,
  DefaultInterest,
  Discount,
} from '../adapters/banks/claims-api';
import { claimAccount, claimIdOf } from '../domain/claim-key';
import { newId, ID_PREFIX } from '../domain/ids';
import { existsInOtherMode, type PageOptions } from './tenant';
import { pageByCreated } from './pagination';

export type ClaimStatus = 'pending' | 'issued' | 'paid' | 'partially_paid' | 'cancelled' | 'expired';

/** The claim's terms as the bank takes them (wire shapes of IOBWS 3.1). */
export interface ClaimWireTerms {
  defaultCharge?: DefaultCharge;
  defaultInterest?: DefaultInterest;
  discount?: Discount;
  isPartialPaymentAllowed?: boolean;
}

export interface ClaimRow {
  id: string;
  merchant_id: string;
  livemode: boolean;
  status: ClaimStatus;
  customer_id: string | null;
  payer_kennitala: string;
  claimant_kennitala: string;
  bank: string;
  claim_number: number;
  bank_claim_id: string;
  amount: number;
  amount_paid: number;
  due_date: string;
  final_due_date: string;
  cancellation_date: string;
  notice_fee: number | null;
  terms: ClaimWireTerms;
  description: string | null;
  metadata: Record<string, string>;
  batch_key: string | null;
  bank_error: { code: string | null; message: string } | null;
  payment_intent_id: string | null;
  /** The checkout session this claim pays (claims in checkout, decision 0063). */
  checkout_session_id: string | null;
  /** The subscription renewal this claim collects (claims in subscriptions, decision 0064). */
  renewal_id: string | null;
  issued_at: Date | null;
  paid_at: Date | null;
  cancelled_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** Skil's template code at the bank for its claims. */
export const CLAIM_TEMPLATE_CODE = 'SKL';

/** Allocates the merchant's next claim number (row lock on its sequence: no two claims share one). */
export async function nextClaimNumber(trx: Knex.Transaction, merchantId: string): Promise<number> {
  const { rows } = await trx.raw<{ rows: { last_number: number }[] }>(
    `insert into claim_number_sequences (merchant_id, last_number) values (?, 1)
     on conflict (merchant_id) do update set last_number = claim_number_sequences.last_number + 1
     returning last_number`,
    [merchantId],
  );
  return rows[0]!.last_number;
}

/** The claim as the bank's `createClaimDetails`. */
export function toCreateClaimDetails(c: ClaimRow): CreateClaimDetails {
  return {
    claimKey: {
      claimantId: c.claimant_kennitala,
      account: claimAccount(c.bank, c.claim_number),
      dueDate: c.due_date,
    },
    payorId: c.payer_kennitala,
    templateCode: CLAIM_TEMPLATE_CODE,
    amount: Number(c.amount),
    finalDueDate: c.final_due_date,
    expirationDate: c.cancellation_date,
    currency: 'ISK',
    reference: c.id.slice(-16),
    ...(c.notice_fee !== null && {
      paymentFee: { printingFee: Number(c.notice_fee), paperlessFee: Number(c.notice_fee) },
    }),
    ...c.terms,
    ...(c.description !== null && { additionalInformation: c.description.slice(0, 200) }),
  };
}

export interface NewClaim {
  merchantId: string;
  livemode: boolean;
  /** The merchant's kennitala (the claimant) and bank account (its first four digits: the branch). */
  claimantKennitala: string;
  bankAccount: string | null;
  customerId: string | null;
  payerKennitala: string;
  amount: number;
  dueDate: string;
  finalDueDate: string;
  cancellationDate: string;
  noticeFee?: number | null;
  terms?: ClaimWireTerms;
  description?: string | null;
  metadata?: Record<string, string>;
  checkoutSessionId?: string | null;
  renewalId?: string | null;
}

/**
 * Stores a pending claim under the merchant's next claim number; the claim batch issues it. The
 * bank knows a claim by claimant, account and due date, and one company (one kennitala) may hold
 * more than one merchant account: where another account already holds the number at the bank for
 * that due date, the next number is taken (decision 0201).
 */
export async function insertClaim(trx: Knex.Transaction, c: NewClaim): Promise<ClaimRow> {
  const bank = c.bankAccount?.slice(0, 4) ?? '0001';
  for (;;) {
    const number = await nextClaimNumber(trx, c.merchantId);
    const [row] = await trx<ClaimRow>('claims')
      .insert({
        id: newId(ID_PREFIX.claim),
        merchant_id: c.merchantId,
        livemode: c.livemode,
        customer_id: c.customerId,
        payer_kennitala: c.payerKennitala.replace('-', ''),
        claimant_kennitala: c.claimantKennitala,
        bank,
        claim_number: number,
        bank_claim_id: claimIdOf({
          claimantId: c.claimantKennitala,
          account: claimAccount(bank, number),
          dueDate: c.dueDate,
        }),
        amount: c.amount,
        due_date: c.dueDate,
        final_due_date: c.finalDueDate,
        cancellation_date: c.cancellationDate,
        notice_fee: c.noticeFee ?? null,
        terms: (c.terms ?? {}) as never,
        description: c.description ?? null,
        metadata: c.metadata ?? {},
        checkout_session_id: c.checkoutSessionId ?? null,
        renewal_id: c.renewalId ?? null,
      })
      .onConflict('bank_claim_id')
      .ignore()
      .returning('*');
    if (row) return row;
  }
}

/** A checkout session whose claim was cancelled, expired or whose payment failed: `unpaid` (spec §3). */
export async function claimSessionUnpaid(trx: Knex.Transaction, sessionId: string): Promise<void> {
  await trx('checkout_sessions')
    .where({ id: sessionId })
    .whereIn('payment_status', ['awaiting_claim', 'paid'])
    .update({ payment_status: 'unpaid', updated_at: new Date() });
}

export interface ClaimFilters {
  status?: ClaimStatus;
  customerId?: string;
  payerKennitala?: string;
  dueDateGte?: string;
  dueDateLte?: string;
}

/** Columns an amendment may change. */
export type ClaimAmendment = Partial<
  Pick<
    ClaimRow,
    | 'amount'
    | 'final_due_date'
    | 'cancellation_date'
    | 'notice_fee'
    | 'description'
    | 'metadata'
    | 'batch_key'
    | 'bank_error'
  >
>;

/** Claims of one merchant and mode, for the claims API. */
export function createClaimRepository(db: Db) {
  const scoped = (scope: Scope, trx: Db) =>
    trx<ClaimRow>('claims').where({ merchant_id: scope.merchantId, livemode: scope.livemode });

  return {
    async findById(scope: Scope, id: string, trx: Db = db): Promise<ClaimRow | undefined> {
      return scoped(scope, trx).where({ id }).first();
    },

    existsInOtherMode: (scope: Scope, id: string, trx: Db = db) =>
      existsInOtherMode(trx, 'claims', scope, id),

    /** Newest first. */
    async list(scope: Scope, filters: ClaimFilters, page: PageOptions, trx: Db = db) {
      const q = scoped(scope, trx);
      if (filters.status) q.where({ status: filters.status });
      if (filters.customerId) q.where({ customer_id: filters.customerId });
      if (filters.payerKennitala) q.where({ payer_kennitala: filters.payerKennitala });
      if (filters.dueDateGte) q.where('due_date', '>=', filters.dueDateGte);
      if (filters.dueDateLte) q.where('due_date', '<=', filters.dueDateLte);
      return pageByCreated<ClaimRow>(q, 'claims', scope, page);
    },

    async amend(
      scope: Scope,
      id: string,
      values: ClaimAmendment,
      trx: Db = db,
    ): Promise<ClaimRow | undefined> {
      const [row] = await scoped(scope, trx)
        .where({ id })
        .update({ ...values, updated_at: new Date() })
        .returning('*');
      return row;
    },

    /** Cancels the claim if it is still in `fromStatus`; undefined when it changed meanwhile. */
    async cancel(
      scope: Scope,
      id: string,
      fromStatus: ClaimStatus,
      trx: Db = db,
    ): Promise<ClaimRow | undefined> {
      const [row] = await scoped(scope, trx)
        .where({ id, status: fromStatus })
        .update({ status: 'cancelled', cancelled_at: new Date(), updated_at: new Date() })
        .returning('*');
      return row;
    },

    /**
     * Closes a pending claim the bank refused whose buyer pays another way (a checkout krafa,
     * decision 0103): cancelled, with the failed payment intent of the attempt.
     */
    async closeRefused(
      scope: Scope,
      id: string,
      paymentIntentId: string,
      trx: Db = db,
    ): Promise<ClaimRow | undefined> {
      const now = new Date();
      const [row] = await scoped(scope, trx)
        .where({ id, status: 'pending' })
        .whereNotNull('bank_error')
        .update({
          status: 'cancelled',
          cancelled_at: now,
          payment_intent_id: paymentIntentId,
          updated_at: now,
        })
        .returning('*');
      return row;
    },
  };
}

export type ClaimRepository = ReturnType<typeof createClaimRepository>;
