import type { Knex } from '../../db/knex';
import type { Scope } from '../../domain/scope';
import type { TestBankPayer } from '../../adapters/banks/test-bank-payer';
import { TestBankPaymentError } from '../../adapters/banks/test-bank-payer';
import { createClaimRepository, type ClaimRow } from '../../db/claims';
import { ConflictError, InvalidRequestError, ServiceUnavailableError } from '../../domain/errors';
import { createClaimLookup } from './claim-lookup';
import { presentClaim, type ClaimObject } from './claim-object';

/** How long a pending krafa may take to be issued by the batch this helper starts. */
const ISSUE_WAIT_MS = 30_000;

/**
 * Test helper: the payer pays a krafa at the test environment's bank, so tools like `skil trigger
 * claim.paid` need no browser. A pending krafa is issued first by a claim batch started at once; the
 * payment then reaches Skil the way every krafa payment does, through the claim payments sync, which
 * is run at once too. Nothing here marks the claim paid: the sync does, from the bank's transactions.
 */
export function createClaimTestPayments(deps: {
  knex: Knex;
  bank: TestBankPayer | undefined;
  issueClaims: ((livemode: boolean, batch: string) => Promise<void>) | undefined;
  syncClaimPayments: ((reason: string) => Promise<void>) | undefined;
}) {
  const claims = createClaimRepository(deps.knex);
  const find = createClaimLookup(claims);

  async function issued(scope: Scope, claim: ClaimRow): Promise<ClaimRow> {
    if (claim.status !== 'pending') return claim;
    if (claim.bank_error) {
      throw new ConflictError(`The bank refused this claim: ${claim.bank_error.message}`, 'claim_refused');
    }
    await deps.issueClaims!(scope.livemode, `test-helper-${claim.id}`);
    const deadline = Date.now() + ISSUE_WAIT_MS;
    for (;;) {
      const now = (await claims.findById(scope, claim.id))!;
      if (now.status !== 'pending' || now.bank_error) return issued(scope, now);
      if (Date.now() > deadline) {
        throw new ServiceUnavailableError(
          'The claim was not issued in time; is the worker running?',
          'claim_not_issued',
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  return {
    async pay(scope: Scope, id: string, amount: number | undefined): Promise<ClaimObject> {
      if (scope.livemode) {
        throw new InvalidRequestError('Test helpers work in test mode only; use a test key', {
          code: 'livemode_mismatch',
        });
      }
      const found = await find(scope, id);
      // A configuration without the simulated bank (npm start has one): the request cannot be served
      // here, which is the caller's to know, not a server fault.
      if (!deps.bank || !deps.issueClaims || !deps.syncClaimPayments) {
        throw new InvalidRequestError('No test bank is connected to this API (npm start runs one)', {
          code: 'test_bank_unavailable',
        });
      }
      const claim = await issued(scope, found);
      if (!['issued', 'partially_paid'].includes(claim.status)) {
        throw new ConflictError(`A ${claim.status} claim cannot be paid`, 'claim_not_payable');
      }
      try {
        await deps.bank.payClaim(claim.bank_claim_id, amount);
      } catch (err) {
        if (!(err instanceof TestBankPaymentError)) throw err;
        throw new InvalidRequestError(`The bank refused the payment: ${err.message}`, {
          code: 'claim_payment_refused',
          ...(amount !== undefined && { param: 'amount' }),
        });
      }
      await deps.syncClaimPayments(`${claim.id}-${Date.now()}`);
      return presentClaim((await claims.findById(scope, claim.id))!);
    },
  };
}

export type ClaimTestPayments = ReturnType<typeof createClaimTestPayments>;
