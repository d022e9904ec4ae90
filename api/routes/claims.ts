import { Router } from 'express';
import { z } from 'zod';
import type { Knex } from '../../db/knex';
import type { Scope } from '../../domain/scope';
import type { OperationDoc } from '../openapi';
import type { ClaimsApi, DayAmountItem, MergeClaimDetails } from '../../bank-adapters/claims-api';
import { claimAccount } from '../../bank-adapters/claims-api';
import { ClaimRejectedError } from '../../bank-adapters/claims-errors';
import { claimTermsOf } from '../../bank-adapters/claim-terms';
import { claimAmountDue } from '../../domain/claim-amount-due';
import { nextBankingDay } from '../../domain/banking-days';
import { checkKennitala } from '../../domain/kennitala';
import { ConflictError, InvalidRequestError, ServiceUnavailableError } from '../../domain/errors';
import { existsInOtherMode } from '../../db/tenant';
import { pageByCreated } from '../../db/pagination';
import { claimSessionUnpaid, insertClaim, type ClaimRow, type ClaimWireTerms } from '../../db/claims';
import { createRoutes } from '../route';
import { listOf, listResponse } from '../list';
import { unix } from '../../domain/unix-time';
import { zBool, zInt } from '../validation';
import { pageOptions, pageQuery, zAmount, zId, zLine, zStoredMetadata } from '../fields';
import { findOr404, missingReference } from '../../services/lookup';

const STATUSES = ['pending', 'issued', 'paid', 'partially_paid', 'cancelled', 'expired'] as const;

const zDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date YYYY-MM-DD')
  .refine(
    (d) =>
      !Number.isNaN(Date.parse(`${d}T00:00:00Z`)) && new Date(`${d}T00:00:00Z`).toISOString().startsWith(d),
    'must be a valid date',
  );
const zClaimAmount = zInt().pipe(z.number().min(1).max(999_999_999_999));
const zRef = z.enum(['due_date', 'final_due_date']);
const zTier = z
  .object({
    type: z.enum(['amount', 'percentage']),
    days: zInt().pipe(z.number().min(0).max(1460)),
    value: z.number().min(0),
  })
  .strict();
const zTiers = z.object({ reference_date: zRef.optional(), first: zTier, second: zTier.optional() }).strict();
const zInterest = z
  .object({
    reference_date: zRef.optional(),
    base: z.enum(['amount', 'amount_and_default_charge']).optional(),
    day_count: z.enum(['daily', '360', 'calendar']).optional(),
    percentage: z.number().min(0).max(100).optional(),
  })
  .strict();

const CreateClaim = z
  .object({
    customer: zId.optional(),
    payer_kennitala: z.string().optional(),
    amount: zClaimAmount,
    due_date: zDate,
    final_due_date: zDate.optional(),
    cancellation_date: zDate.optional(),
    notice_fee: zAmount().optional(),
    default_charges: zTiers.optional(),
    default_interest: zInterest.optional(),
    discount: zTiers.optional(),
    allow_partial_payment: zBool().optional(),
    description: zLine(200).optional(),
    metadata: zStoredMetadata.optional(),
  })
  .strict();
const AmendClaim = z
  .object({
    amount: zClaimAmount.optional(),
    final_due_date: zDate.optional(),
    cancellation_date: zDate.optional(),
    notice_fee: zAmount().nullable().optional(),
    description: zLine(200).nullable().optional(),
    metadata: zStoredMetadata.optional(),
  })
  .strict();
const ListClaims = pageQuery
  .extend({
    status: z.enum(STATUSES).optional(),
    customer: zId.optional(),
    payer_kennitala: z
      .string()
      .regex(/^\d{10}$/, 'must be 10 digits')
      .optional(),
    due_date: z.object({ gte: zDate.optional(), lte: zDate.optional() }).strict().optional(),
  })
  .strict();

export const ClaimSchema = z.object({
  id: z.string(),
  object: z.literal('claim'),
  livemode: z.boolean(),
  status: z.enum(STATUSES),
  customer: z.string().nullable(),
  payer_kennitala: z.string(),
  claim_number: z.number(),
  claim_key: z.object({ claimant_id: z.string(), account: z.string(), due_date: z.string() }).nullable(),
  amount: z.number(),
  amount_paid: z.number(),
  currency: z.literal('ISK'),
  due_date: z.string(),
  final_due_date: z.string(),
  cancellation_date: z.string(),
  notice_fee: z.number().nullable(),
  default_charges: z.unknown().nullable(),
  default_interest: z.unknown().nullable(),
  discount: z.unknown().nullable(),
  allow_partial_payment: z.boolean(),
  description: z.string().nullable(),
  payment_intent: z.string().nullable(),
  bank_error: z.object({ code: z.string().nullable(), message: z.string() }).nullable(),
  metadata: z.record(z.string(), z.string()),
  created_at: z.number(),
});

type Tiers = z.output<typeof zTiers>;
const REF = { due_date: 'DueDate', final_due_date: 'FinalDueDate' } as const;
const REF_BACK = { DueDate: 'due_date', FinalDueDate: 'final_due_date' } as const;
const BASE = { amount: 'Amount', amount_and_default_charge: 'AmountAndDefaultCharge' } as const;
const BASE_BACK = { Amount: 'amount', AmountAndDefaultCharge: 'amount_and_default_charge' } as const;
const COUNT = { daily: 'Daily', '360': '360', calendar: 'Calendar' } as const;
const COUNT_BACK = { Daily: 'daily', '360': '360', Calendar: 'calendar' } as const;

const tierOut = (t: { type: 'amount' | 'percentage'; days: number; value: number }): DayAmountItem => ({
  chargeType: t.type === 'amount' ? 'Amount' : 'Percentage',
  day: t.days,
  value: t.value,
});
const tierBack = (t: DayAmountItem | undefined) =>
  t && { type: t.chargeType === 'Amount' ? 'amount' : 'percentage', days: t.day ?? 0, value: t.value ?? 0 };
const tiersOut = (t: Tiers) => ({
  ...(t.reference_date && { referenceDate: REF[t.reference_date] }),
  first: tierOut(t.first),
  ...(t.second && { second: tierOut(t.second) }),
});
const tiersBack = (t: ClaimWireTerms['discount']) =>
  t
    ? {
        reference_date: t.referenceDate ? REF_BACK[t.referenceDate] : null,
        first: tierBack(t.first) ?? null,
        second: tierBack(t.second) ?? null,
      }
    : null;

export function presentClaim(row: ClaimRow) {
  const t = row.terms;
  return {
    id: row.id,
    object: 'claim' as const,
    livemode: row.livemode,
    status: row.status,
    customer: row.customer_id,
    payer_kennitala: row.payer_kennitala,
    claim_number: row.claim_number,
    claim_key:
      row.status === 'pending'
        ? null
        : {
            claimant_id: row.claimant_kennitala,
            account: claimAccount(row.bank, row.claim_number),
            due_date: row.due_date,
          },
    amount: Number(row.amount),
    amount_paid: Number(row.amount_paid),
    currency: 'ISK' as const,
    due_date: row.due_date,
    final_due_date: row.final_due_date,
    cancellation_date: row.cancellation_date,
    notice_fee: row.notice_fee === null ? null : Number(row.notice_fee),
    default_charges: tiersBack(t.defaultCharge),
    default_interest: t.defaultInterest
      ? {
          reference_date: t.defaultInterest.referenceDate ? REF_BACK[t.defaultInterest.referenceDate] : null,
          base: t.defaultInterest.baseAmountType ? BASE_BACK[t.defaultInterest.baseAmountType] : null,
          day_count: t.defaultInterest.baseTimeType ? COUNT_BACK[t.defaultInterest.baseTimeType] : null,
          percentage: t.defaultInterest.percentage ?? null,
        }
      : null,
    discount: tiersBack(t.discount),
    allow_partial_payment: t.isPartialPaymentAllowed === true,
    description: row.description,
    payment_intent: row.payment_intent_id,
    bank_error: row.bank_error,
    metadata: row.metadata,
    created_at: unix(row.created_at),
  };
}

function plusYears(date: string, years: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCFullYear(d.getUTCFullYear() + years);
  return d.toISOString().slice(0, 10);
}

/** Checks the date rules: eindagi on or after gjalddagi; cancellation between eindagi and gjalddagi + 4 years. */
function checkDates(due: string, finalDue: string, cancellation: string): void {
  if (finalDue < due)
    throw new InvalidRequestError('final_due_date must be on or after due_date', {
      code: 'parameter_invalid',
      param: 'final_due_date',
    });
  if (cancellation < finalDue || cancellation > plusYears(due, 4))
    throw new InvalidRequestError(
      'cancellation_date must be on or after final_due_date and at most 4 years after due_date',
      { code: 'parameter_invalid', param: 'cancellation_date' },
    );
}

/** Bank calls of the API: with the bank's answer as a 502-free error when it refuses. */
async function atBank<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (err instanceof ClaimRejectedError)
      throw new ConflictError(
        `The bank refused the change: ${err.message}`,
        `bank_${err.resultCode.toLowerCase()}`,
      );
    throw err;
  }
}

/** Bank claims (kröfur): created pending, issued in batches by the claim-batch workflow (decision 0060). */
export function claimsRouter(
  deps: { knex: Knex; claimsApi?: ClaimsApi | undefined },
  docs: OperationDoc[],
): Router {
  const router = Router();
  const route = createRoutes(router, docs);
  const tag = 'Claims';
  const table = (scope: Scope, db: Knex | Knex.Transaction = deps.knex) =>
    db<ClaimRow>('claims').where({ merchant_id: scope.merchantId, livemode: scope.livemode });
  const find = (scope: Scope, id: string) =>
    findOr404(
      'claim',
      scope,
      id,
      () => table(scope).where({ id }).first(),
      () => existsInOtherMode(deps.knex, 'claims', scope, id),
    );
  const bank = (): ClaimsApi => {
    if (!deps.claimsApi)
      throw new ServiceUnavailableError('No bank connection is configured for claims', 'bank_unavailable');
    return deps.claimsApi;
  };

  route({
    method: 'post',
    path: '/v1/claims',
    summary: 'Create a claim (krafa); the next claim batch issues it at the bank',
    tag,
    body: CreateClaim,
    response: ClaimSchema,
    handler: async ({ body, scope }) => {
      const merchant = await deps
        .knex('merchants')
        .where({ id: scope.merchantId })
        .first<{ kennitala: string | null; bank_account: string | null }>('kennitala', 'bank_account');
      if (!merchant?.kennitala)
        throw new InvalidRequestError('The merchant has no kennitala to issue claims under', {
          code: 'merchant_kennitala_missing',
        });
      if ((body.customer === undefined) === (body.payer_kennitala === undefined))
        throw new InvalidRequestError('Give exactly one of customer and payer_kennitala', {
          code: 'parameter_missing',
          param: body.customer === undefined ? 'payer_kennitala' : 'customer',
        });
      let payer = body.payer_kennitala;
      if (body.customer !== undefined) {
        const customer = await deps
          .knex('customers')
          .where({ id: body.customer, merchant_id: scope.merchantId, livemode: scope.livemode })
          .whereNull('deleted_at')
          .first<{ kennitala: string | null }>('kennitala');
        if (!customer) throw missingReference('customer', body.customer, 'customer');
        if (!customer.kennitala)
          throw new InvalidRequestError('The customer has no kennitala to send the claim to', {
            code: 'parameter_invalid',
            param: 'customer',
          });
        payer = customer.kennitala;
      }
      const kt = checkKennitala(payer!);
      if (!kt.ok)
        throw new InvalidRequestError(`payer_kennitala ${kt.reason}`, {
          code: 'parameter_invalid',
          param: 'payer_kennitala',
        });
      const dueDate = nextBankingDay(body.due_date);
      const finalDueDate = nextBankingDay(body.final_due_date ?? dueDate);
      const cancellationDate = body.cancellation_date
        ? nextBankingDay(body.cancellation_date)
        : plusYears(dueDate, 4);
      checkDates(dueDate, finalDueDate, cancellationDate);
      const terms: ClaimWireTerms = {
        ...(body.default_charges && { defaultCharge: tiersOut(body.default_charges) }),
        ...(body.default_interest && {
          defaultInterest: {
            ...(body.default_interest.reference_date && {
              referenceDate: REF[body.default_interest.reference_date],
            }),
            ...(body.default_interest.base && { baseAmountType: BASE[body.default_interest.base] }),
            ...(body.default_interest.day_count && { baseTimeType: COUNT[body.default_interest.day_count] }),
            ...(body.default_interest.percentage !== undefined && {
              percentage: body.default_interest.percentage,
            }),
          },
        }),
        ...(body.discount && { discount: tiersOut(body.discount) }),
        ...(body.allow_partial_payment !== undefined && {
          isPartialPaymentAllowed: body.allow_partial_payment,
        }),
      };
      try {
        claimAmountDue(
          claimTermsOf({
            amount: body.amount,
            claimKey: { claimantId: '', account: '', dueDate },
            finalDueDate,
            ...terms,
          }),
          dueDate,
        );
      } catch (err) {
        const param = body.discount
          ? 'discount'
          : body.default_charges
            ? 'default_charges'
            : 'default_interest';
        throw new InvalidRequestError(`Invalid claim terms: ${(err as Error).message}`, {
          code: 'parameter_invalid',
          param,
        });
      }
      const row = await deps.knex.transaction((trx) =>
        insertClaim(trx, {
          merchantId: scope.merchantId,
          livemode: scope.livemode,
          claimantKennitala: merchant.kennitala!,
          bankAccount: merchant.bank_account,
          customerId: body.customer ?? null,
          payerKennitala: payer!,
          amount: body.amount,
          dueDate,
          finalDueDate,
          cancellationDate,
          noticeFee: body.notice_fee ?? null,
          terms,
          description: body.description ?? null,
          metadata: body.metadata ?? {},
        }),
      );
      return presentClaim(row);
    },
  });

  route({
    method: 'get',
    path: '/v1/claims',
    summary: 'List claims, newest first',
    tag,
    query: ListClaims,
    response: listOf(ClaimSchema),
    handler: async ({ query, scope }) => {
      const q = table(scope);
      if (query.status) q.where({ status: query.status });
      if (query.customer) q.where({ customer_id: query.customer });
      if (query.payer_kennitala) q.where({ payer_kennitala: query.payer_kennitala });
      if (query.due_date?.gte) q.where('due_date', '>=', query.due_date.gte);
      if (query.due_date?.lte) q.where('due_date', '<=', query.due_date.lte);
      const page = await pageByCreated<ClaimRow>(q, 'claims', scope, pageOptions(query));
      return listResponse('/v1/claims', page.data.map(presentClaim), page.hasMore);
    },
  });

  route({
    method: 'get',
    path: '/v1/claims/:id',
    summary: 'Retrieve a claim',
    tag,
    response: ClaimSchema,
    handler: async ({ params, scope }) => presentClaim(await find(scope, params.id!)),
  });

  route({
    method: 'post',
    path: '/v1/claims/:id',
    summary: 'Amend an unpaid claim (at the bank too once issued)',
    tag,
    body: AmendClaim,
    response: ClaimSchema,
    handler: async ({ params, body, scope }) => {
      const claim = await find(scope, params.id!);
      if (!['pending', 'issued'].includes(claim.status) || Number(claim.amount_paid) > 0)
        throw new ConflictError(`A ${claim.status} claim cannot be amended`, 'claim_not_amendable');
      if (claim.status === 'pending' && claim.batch_key !== null && claim.bank_error === null)
        throw new ConflictError('The claim is being issued; amend it once it is issued', 'claim_issuing');
      const finalDueDate = body.final_due_date ? nextBankingDay(body.final_due_date) : claim.final_due_date;
      const cancellationDate = body.cancellation_date
        ? nextBankingDay(body.cancellation_date)
        : claim.cancellation_date;
      checkDates(claim.due_date, finalDueDate, cancellationDate);
      const patch: MergeClaimDetails = {
        ...(body.amount !== undefined && { amount: body.amount }),
        ...(body.final_due_date !== undefined && { finalDueDate }),
        ...(body.cancellation_date !== undefined && { expirationDate: cancellationDate }),
        ...(body.notice_fee !== undefined && {
          paymentFee: { printingFee: body.notice_fee ?? 0, paperlessFee: body.notice_fee ?? 0 },
        }),
        ...(body.description !== undefined && { additionalInformation: body.description ?? '' }),
      };
      if (claim.status === 'issued' && Object.keys(patch).length > 0) {
        const api = bank();
        // One identity per distinct change: a retried amend is sent once, a new one is sent anew.
        const identity = `${claim.id}:amend:${claim.updated_at.getTime()}:${JSON.stringify(patch)}`;
        await atBank(() => api.alterClaim(claim.bank_claim_id, patch, { idempotencyIdentity: identity }));
      }
      const [row] = await table(scope)
        .where({ id: claim.id })
        .update({
          ...(body.amount !== undefined && { amount: body.amount }),
          final_due_date: finalDueDate,
          cancellation_date: cancellationDate,
          ...(body.notice_fee !== undefined && { notice_fee: body.notice_fee }),
          ...(body.description !== undefined && { description: body.description }),
          ...(body.metadata !== undefined && { metadata: body.metadata }),
          // A pending claim the bank refused is tried again by the next batch.
          ...(claim.status === 'pending' && { batch_key: null, bank_error: null }),
          updated_at: new Date(),
        })
        .returning('*');
      return presentClaim(row!);
    },
  });

  route({
    method: 'post',
    path: '/v1/claims/:id/cancel',
    summary: 'Cancel an unpaid claim (at the bank too once issued)',
    tag,
    response: ClaimSchema,
    handler: async ({ params, scope }) => {
      const claim = await find(scope, params.id!);
      if (claim.status === 'cancelled') return presentClaim(claim);
      if (!['pending', 'issued', 'partially_paid'].includes(claim.status))
        throw new ConflictError(`A ${claim.status} claim cannot be cancelled`, 'claim_not_cancellable');
      if (claim.status === 'pending' && claim.batch_key !== null && claim.bank_error === null)
        throw new ConflictError('The claim is being issued; cancel it once it is issued', 'claim_issuing');
      if (claim.status !== 'pending') {
        const api = bank();
        await atBank(async () => {
          try {
            await api.cancelClaim(claim.bank_claim_id, { idempotencyIdentity: `${claim.id}:cancel` });
          } catch (err) {
            // Already cancelled at the bank (an earlier attempt whose answer was lost): done.
            if (!(err instanceof ClaimRejectedError && err.resultCode === 'CLAIM_IS_CANCELLED')) throw err;
          }
        });
      }
      const row = await deps.knex.transaction(async (trx) => {
        const [cancelled] = await table(scope, trx)
          .where({ id: claim.id, status: claim.status })
          .update({ status: 'cancelled', cancelled_at: new Date(), updated_at: new Date() })
          .returning('*');
        // The checkout session it was to pay is left unpaid (spec §3; decision 0063).
        if (cancelled?.checkout_session_id) await claimSessionUnpaid(trx, cancelled.checkout_session_id);
        return cancelled;
      });
      if (!row) throw new ConflictError('The claim changed meanwhile; try again', 'claim_changed');
      return presentClaim(row);
    },
  });

  return router;
}
