import type { Knex } from '../../db/knex';
import type { Scope } from '../../domain/scope';
import { claimTermsOf } from '../../adapters/banks/claim-terms';
import { insertClaim, type ClaimRow, type ClaimWireTerms } from '../../db/claims';
import { createCustomerRepository } from '../../db/customers';
import { createMerchantRepository } from '../../db/merchants';
import { claimAmountDue } from '../../domain/claim-amount-due';
import { nextBankingDay } from '../../domain/banking-days';
import { checkKennitala } from '../../domain/kennitala';
import { InvalidRequestError } from '../../domain/errors';
import { CLAIM_LIMITS, claimTermsProblem } from '../../domain/claim-limits';
import { missingReference } from '../lookup';
import { assertClaimsEnabled } from '../merchant/onboarding';
import { checkClaimDates, checkDueDate, plusYears } from './claim-dates';
import { toWireTerms, type ClaimTermsInput } from './claim-wire-terms';

export interface CreateClaimInput extends ClaimTermsInput {
  /** Exactly one of `customer` (with a kennitala) and `payer_kennitala` names the payer. */
  customer?: string | undefined;
  payer_kennitala?: string | undefined;
  amount: number;
  due_date: string;
  final_due_date?: string | undefined;
  cancellation_date?: string | undefined;
  notice_fee?: number | undefined;
  description?: string | undefined;
  metadata?: Record<string, string> | undefined;
}

/** The payer's kennitala: given, or the customer's. */
async function payerOf(knex: Knex, scope: Scope, input: CreateClaimInput): Promise<string> {
  if ((input.customer === undefined) === (input.payer_kennitala === undefined))
    throw new InvalidRequestError('Give exactly one of customer and payer_kennitala', {
      code: 'parameter_missing',
      param: input.customer === undefined ? 'payer_kennitala' : 'customer',
    });
  let payer = input.payer_kennitala;
  if (input.customer !== undefined) {
    const customer = await createCustomerRepository(knex).findById(scope, input.customer);
    if (!customer) throw missingReference('customer', input.customer, 'customer');
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
  return payer!;
}

/** Refuses terms the amount-due rules cannot apply (say a discount larger than the claim). */
function checkTerms(input: CreateClaimInput, terms: ClaimWireTerms, dueDate: string, finalDueDate: string) {
  try {
    claimAmountDue(
      claimTermsOf({
        amount: input.amount,
        claimKey: { claimantId: '', account: '', dueDate },
        finalDueDate,
        ...terms,
      }),
      dueDate,
    );
  } catch (err) {
    const param = input.discount
      ? 'discount'
      : input.default_charges
        ? 'default_charges'
        : 'default_interest';
    throw new InvalidRequestError(`Invalid claim terms: ${(err as Error).message}`, {
      code: 'parameter_invalid',
      param,
    });
  }
}

/**
 * Stores a pending claim under the merchant's next claim number; the next claim batch issues it
 * (decision 0060). Dates on closed banking days move to the next banking day.
 */
export async function createClaim(knex: Knex, scope: Scope, input: CreateClaimInput): Promise<ClaimRow> {
  const merchant = await createMerchantRepository(knex).findById(scope.merchantId);
  assertClaimsEnabled(merchant, scope.livemode);
  const claimant = merchant.kennitala;
  const payer = await payerOf(knex, scope, input);
  checkDueDate(input.due_date, new Date().toISOString().slice(0, 10));
  checkClaimDates(
    input.due_date,
    input.final_due_date ?? input.due_date,
    input.cancellation_date ?? plusYears(input.due_date, CLAIM_LIMITS.yearsAfterDue),
  );
  const dueDate = nextBankingDay(input.due_date);
  const finalDueDate = nextBankingDay(input.final_due_date ?? dueDate);
  const cancellationDate = input.cancellation_date
    ? nextBankingDay(input.cancellation_date)
    : plusYears(dueDate, CLAIM_LIMITS.yearsAfterDue);
  checkClaimDates(dueDate, finalDueDate, cancellationDate);
  const problem = claimTermsProblem({
    amount: input.amount,
    noticeFee: input.notice_fee,
    defaultCharges: input.default_charges,
    discount: input.discount,
  });
  if (problem)
    throw new InvalidRequestError(`${problem.param} ${problem.message}`, {
      code: 'parameter_invalid',
      param: problem.param,
    });
  const terms = toWireTerms(input);
  checkTerms(input, terms, dueDate, finalDueDate);
  return knex.transaction((trx) =>
    insertClaim(trx, {
      merchantId: scope.merchantId,
      livemode: scope.livemode,
      claimantKennitala: claimant,
      bankAccount: merchant.bank_account,
      customerId: input.customer ?? null,
      payerKennitala: payer,
      amount: input.amount,
      dueDate,
      finalDueDate,
      cancellationDate,
      noticeFee: input.notice_fee ?? null,
      terms,
      description: input.description ?? null,
      metadata: input.metadata ?? {},
    }),
  );
}
