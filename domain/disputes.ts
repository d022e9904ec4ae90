/**
 * A card dispute's states (decision 0156, Stripe's dispute object): opened `needs_response`, the
 * merchant's evidence puts it `under_review`, the cardholder's bank closes it `won` or `lost`.
 * Notifications may arrive late, twice or out of order; a state is only ever left for a later one.
 */
export const DISPUTE_STATUSES = ['needs_response', 'under_review', 'won', 'lost'] as const;
export type DisputeStatus = (typeof DISPUTE_STATUSES)[number];

export const DISPUTE_REASONS = ['fraudulent', 'product_not_received', 'duplicate', 'general'] as const;
export type DisputeReason = (typeof DISPUTE_REASONS)[number];

const RANK: Record<DisputeStatus, number> = { needs_response: 0, under_review: 1, won: 2, lost: 2 };

/** Whether a dispute in `from` may move to `to`: forward only, and a closed one never again. */
export function disputeMoves(from: DisputeStatus, to: DisputeStatus): boolean {
  return RANK[to] > RANK[from];
}

/** The statuses a dispute may be in to move to `to` (for a guarded update). */
export function disputeMovesFrom(to: DisputeStatus): DisputeStatus[] {
  return DISPUTE_STATUSES.filter((s) => disputeMoves(s, to));
}

export const isClosed = (s: DisputeStatus): boolean => s === 'won' || s === 'lost';

/** The event a move to `to` records. */
export function disputeEventOf(to: DisputeStatus): 'dispute.updated' | 'dispute.closed' {
  return isClosed(to) ? 'dispute.closed' : 'dispute.updated';
}
