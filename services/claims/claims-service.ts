import type { Knex } from '../../db/knex';
import type { Scope } from '../../domain/scope';
import type { ClaimsApi, MergeClaimDetails } from '../../adapters/banks/claims-api';
import type { PageOptions } from '../../db/tenant';
import { BankError, ClaimRejectedError } from '../../adapters/banks/claims-errors';
import { claimSessionUnpaid, createClaimRepository, type ClaimFilters, type ClaimRow } from '../../db/claims';
import { lifecycleRefsOfClaims } from '../../db/claim-collection';
import { stopCollection } from '../../db/collection';
import type { SubscriptionEngine } from '../../engine/subscription-engine';
import { nextBankingDay } from '../../domain/banking-days';
import { ConflictError, InvalidRequestError, ServiceUnavailableError } from '../../domain/errors';
import { claimTermsProblem } from '../../domain/claim-limits';
import { findReference } from '../lookup';
import { createCustomerRepository } from '../../db/customers';
import { createClaimLookup } from './claim-lookup';
import { checkClaimDates } from './claim-dates';
import { presentClaim, type ClaimObject } from './claim-object';
import { tiersFromWire } from './claim-wire-terms';
import { createClaim, type CreateClaimInput } from './create-claim';
import { creditCancelledClaim } from '../invoices/issue';

export interface AmendClaimInput {
  amount?: number | undefined;
  final_due_date?: string | undefined;
  cancellation_date?: string | undefined;
  /** null: no notice fee. */
  notice_fee?: number | null | undefined;
  description?: string | null | undefined;
  metadata?: Record<string, string> | undefined;
}

export interface ClaimsServiceDeps {
  knex: Knex;
  /** The test environment's claims bank (the simulated bank): amend and cancel of issued claims; unset: 503. */
  claimsApi?: ClaimsApi | undefined;
  /** The live environment's claims bank (decision 0177); unset: live amend and cancel answer 503. */
  liveClaimsApi?: ClaimsApi | undefined;
  /**
   * Signals the subscriptions a cancelled krafa ends (decision 0105); unset (no workflow engine):
   * a waiting one learns it when its wait for the krafa's expiry ends.
   */
  engine?: SubscriptionEngine | null | undefined;
  /** Wakes the channels of events recorded (a cancelled krafa's credit note); a lost wake-up is found by the relay. */
  wakeChannels?: ((channelIds: string[]) => Promise<void>) | undefined;
}

/**
 * Bank calls of the API: the bank's refusal becomes a 409 that names its result code; a bank that
 * cannot be reached, refuses the connection (a client certificate it does not accept) or our
 * credentials is 503 `bank_unavailable` (decision 0177), and the claim is left as it was.
 */
async function atBank<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (err instanceof ClaimRejectedError)
      throw new ConflictError(
        `The bank refused the change: ${err.message}`,
        `bank_${err.resultCode.toLowerCase()}`,
      );
    if (err instanceof BankError)
      throw new ServiceUnavailableError(
        'The bank could not be reached or refused the connection; the claim is unchanged. Try again later',
        'bank_unavailable',
      );
    throw err;
  }
}

/** The claim's terms as the limits read them. */
function limitTiers(wire: ClaimRow['terms']['discount'] | ClaimRow['terms']['defaultCharge']) {
  const tiers = tiersFromWire(wire);
  return tiers?.first ? { first: tiers.first, second: tiers.second ?? undefined } : null;
}

/**
 * The amended amount and notice fee with the claim's stored terms, within the limits (decision 0104).
 * A stored term the change breaks (a discount now above a smaller amount) is reported on the change.
 */
function checkAmendedTerms(claim: ClaimRow, input: AmendClaimInput): void {
  const problem = claimTermsProblem({
    amount: input.amount ?? Number(claim.amount),
    noticeFee:
      input.notice_fee !== undefined ? input.notice_fee : claim.notice_fee && Number(claim.notice_fee),
    defaultCharges: limitTiers(claim.terms.defaultCharge),
    discount: limitTiers(claim.terms.discount),
  });
  if (!problem) return;
  const param = problem.param === 'notice_fee' || input.amount === undefined ? 'notice_fee' : 'amount';
  const message =
    param === problem.param
      ? `${param} ${problem.message}`
      : `${param}: the claim's ${problem.param} ${problem.message}`;
  throw new InvalidRequestError(message, { code: 'parameter_invalid', param });
}

/** A pending claim with a batch key and no bank error is in a batch at the bank right now. */
const issuing = (claim: ClaimRow) =>
  claim.status === 'pending' && claim.batch_key !== null && claim.bank_error === null;

/** Bank claims (kröfur): created pending, issued in batches by the claim-batch workflow (decision 0060). */
export function createClaimsService(deps: ClaimsServiceDeps) {
  const claims = createClaimRepository(deps.knex);
  const customers = createCustomerRepository(deps.knex);
  const find = createClaimLookup(claims);
  const bank = (livemode: boolean): ClaimsApi => {
    const api = livemode ? deps.liveClaimsApi : deps.claimsApi;
    if (!api)
      throw new ServiceUnavailableError(
        `No ${livemode ? 'live' : 'test'} bank connection is configured for claims`,
        'bank_unavailable',
      );
    return api;
  };

  /** The subscription a cancelled krafa collected for goes to its end state (decision 0105). */
  async function notifySubscriptions(claimId: string) {
    const refs = await lifecycleRefsOfClaims(deps.knex, [claimId]);
    if (refs.length > 0 && deps.engine) await deps.engine.notify(refs);
  }

  return {
    async create(scope: Scope, input: CreateClaimInput): Promise<ClaimObject> {
      return presentClaim(await createClaim(deps.knex, scope, input));
    },

    async list(scope: Scope, filters: ClaimFilters, page: PageOptions) {
      const { customerId } = filters;
      if (customerId !== undefined)
        await findReference('customer', customerId, 'customer', () => customers.findById(scope, customerId));
      const result = await claims.list(scope, filters, page);
      return { data: result.data.map(presentClaim), hasMore: result.hasMore };
    },

    async retrieve(scope: Scope, id: string): Promise<ClaimObject> {
      return presentClaim(await find(scope, id));
    },

    /** Amends an unpaid claim; an issued one is altered at the bank first. */
    async amend(scope: Scope, id: string, input: AmendClaimInput): Promise<ClaimObject> {
      const claim = await find(scope, id);
      if (!['pending', 'issued'].includes(claim.status) || Number(claim.amount_paid) > 0)
        throw new ConflictError(`A ${claim.status} claim cannot be amended`, 'claim_not_amendable');
      if (issuing(claim))
        throw new ConflictError('The claim is being issued; amend it once it is issued', 'claim_issuing');
      checkClaimDates(
        claim.due_date,
        input.final_due_date ?? claim.final_due_date,
        input.cancellation_date ?? claim.cancellation_date,
      );
      const finalDueDate = input.final_due_date ? nextBankingDay(input.final_due_date) : claim.final_due_date;
      const cancellationDate = input.cancellation_date
        ? nextBankingDay(input.cancellation_date)
        : claim.cancellation_date;
      checkClaimDates(claim.due_date, finalDueDate, cancellationDate);
      checkAmendedTerms(claim, input);
      const patch: MergeClaimDetails = {
        ...(input.amount !== undefined && { amount: input.amount }),
        ...(input.final_due_date !== undefined && { finalDueDate }),
        ...(input.cancellation_date !== undefined && { expirationDate: cancellationDate }),
        ...(input.notice_fee !== undefined && {
          paymentFee: { printingFee: input.notice_fee ?? 0, paperlessFee: input.notice_fee ?? 0 },
        }),
        ...(input.description !== undefined && { additionalInformation: input.description ?? '' }),
      };
      if (claim.status === 'issued' && Object.keys(patch).length > 0) {
        const api = bank(scope.livemode);
        // One identity per distinct change: a retried amend is sent once, a new one is sent anew.
        const identity = `${claim.id}:amend:${claim.updated_at.getTime()}:${JSON.stringify(patch)}`;
        await atBank(() => api.alterClaim(claim.bank_claim_id, patch, { idempotencyIdentity: identity }));
      }
      const row = await claims.amend(scope, claim.id, {
        ...(input.amount !== undefined && { amount: input.amount }),
        final_due_date: finalDueDate,
        cancellation_date: cancellationDate,
        ...(input.notice_fee !== undefined && { notice_fee: input.notice_fee }),
        ...(input.description !== undefined && { description: input.description }),
        ...(input.metadata !== undefined && { metadata: input.metadata }),
        // A pending claim the bank refused is tried again by the next batch.
        ...(claim.status === 'pending' && { batch_key: null, bank_error: null }),
      });
      return presentClaim(row!);
    },

    /** Cancels an unpaid claim (at the bank too once issued); cancelling it again changes nothing. */
    async cancel(scope: Scope, id: string): Promise<ClaimObject> {
      const claim = await find(scope, id);
      // A repeated cancel signals again: the subscriptions answered are only those still to move on.
      if (claim.status === 'cancelled') {
        await notifySubscriptions(claim.id);
        return presentClaim(claim);
      }
      if (!['pending', 'issued', 'partially_paid'].includes(claim.status))
        throw new ConflictError(`A ${claim.status} claim cannot be cancelled`, 'claim_not_cancellable');
      if (issuing(claim))
        throw new ConflictError('The claim is being issued; cancel it once it is issued', 'claim_issuing');
      if (claim.status !== 'pending') {
        const api = bank(scope.livemode);
        await atBank(async () => {
          try {
            await api.cancelClaim(claim.bank_claim_id, { idempotencyIdentity: `${claim.id}:cancel` });
          } catch (err) {
            // Already cancelled at the bank (an earlier attempt whose answer was lost): done.
            if (!(err instanceof ClaimRejectedError && err.resultCode === 'CLAIM_IS_CANCELLED')) throw err;
          }
        });
      }
      let channels: string[] = [];
      const row = await deps.knex.transaction(async (trx) => {
        const cancelled = await claims.cancel(scope, claim.id, claim.status, trx);
        if (!cancelled) return cancelled;
        // The merchant's cancel ends the collection steps; costs already taken stay on record but
        // nothing is owed on a cancelled krafa (decision 0246).
        await stopCollection(trx, cancelled.id, null, 'stopped');
        // The checkout session it was to pay is left unpaid (spec §3; decision 0063).
        if (cancelled.checkout_session_id) await claimSessionUnpaid(trx, cancelled.checkout_session_id);
        // Its invoice is credited for what was not paid (decision 0211).
        channels = await creditCancelledClaim(trx, cancelled);
        return cancelled;
      });
      if (!row) throw new ConflictError('The claim changed meanwhile; try again', 'claim_changed');
      if (channels.length > 0) await deps.wakeChannels?.(channels).catch(() => undefined);
      await notifySubscriptions(row.id);
      return presentClaim(row);
    },
  };
}

export type ClaimsService = ReturnType<typeof createClaimsService>;
