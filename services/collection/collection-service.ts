import type { Knex } from '../../db/knex';
import type { Scope } from '../../domain/scope';
import {
  claimForPayer,
  createCollectionRepository,
  customerClockTime,
  overdueClaims,
  type CollectionClaimRow,
} from '../../db/collection';
import { NotFoundError } from '../../domain/errors';
import type { RateTable } from './rate-table';
import { amountOwed } from './amount-owed';
import { presentCollection, type ClaimCollectionObject } from './collection-object';
import { costLabels } from './collection-mail';

/**
 * Reading a krafa's collection (decision 0246): the API's `GET /v1/claims/{id}/collection`, the
 * dashboard's overdue list and the payer page all show what is owed from the one computation.
 */
export function createCollectionService(deps: { knex: Knex; rates: RateTable }) {
  const repo = createCollectionRepository(deps.knex);

  async function view(claim: CollectionClaimRow, date: string): Promise<ClaimCollectionObject> {
    const scope = { merchantId: claim.merchant_id, livemode: claim.livemode };
    const steps = await repo.steps(scope, claim.id);
    return presentCollection(claim, steps, amountOwed(claim, date, await deps.rates.table(claim.livemode)));
  }

  /** The clock's date for a krafa on a test clock (through its customer), today's otherwise. */
  async function todayFor(claim: CollectionClaimRow): Promise<string> {
    const clock = claim.customer_id ? await customerClockTime(deps.knex, claim.customer_id) : null;
    return (clock ?? new Date()).toISOString().slice(0, 10);
  }

  return {
    /** A krafa's collection and what is owed on `date` (default: today, or its test clock's day). */
    async retrieve(scope: Scope, claimId: string, date?: string): Promise<ClaimCollectionObject> {
      const claim = await repo.claim(scope, claimId);
      if (!claim) throw new NotFoundError(`No such claim: '${claimId}'`, 'id');
      return view(claim, date ?? (await todayFor(claim)));
    },

    /** The overdue kröfur with their next step and when (dashboard). */
    async overdue(
      scope: Scope,
      limit = 100,
    ): Promise<(ClaimCollectionObject & { claim_number: number; payer_kennitala: string })[]> {
      const rows = await overdueClaims(deps.knex, scope, limit);
      const out = [];
      for (const row of rows)
        out.push({
          ...(await view(row, await todayFor(row))),
          claim_number: row.claim_number,
          payer_kennitala: row.payer_kennitala,
        });
      return out;
    },

    /**
     * The payer page's view of a krafa, by its id alone (the id in the letter is the payer's link;
     * ids are random and unguessable). Null for no such krafa.
     */
    async forPayer(claimId: string) {
      const found = await claimForPayer(deps.knex, claimId);
      if (!found) return null;
      const { claim, merchantName } = found;
      const collection = await view(claim, await todayFor(claim));
      const ownCosts = collection.amount_owed.costs - collection.amount_owed.collection_costs;
      return {
        claim,
        merchantName,
        collection,
        costs: costLabels(ownCosts, collection.steps),
      };
    },
  };
}

export type CollectionService = ReturnType<typeof createCollectionService>;
