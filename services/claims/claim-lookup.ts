import type { Scope } from '../../domain/scope';
import type { ClaimRepository, ClaimRow } from '../../db/claims';
import { findOr404 } from '../lookup';

/** Finds a claim of the caller's scope, or a 404 that says when it exists in the other mode. */
export function createClaimLookup(claims: ClaimRepository) {
  return (scope: Scope, id: string): Promise<ClaimRow> =>
    findOr404(
      'claim',
      scope,
      id,
      () => claims.findById(scope, id),
      () => claims.existsInOtherMode(scope, id),
    );
}
