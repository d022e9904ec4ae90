import { z } from 'zod';

/**
 * The card → krafa fallback (decision 0105): when a subscription's card retries run out, a krafa for
 * the unpaid renewal instead of the end state, by the merchant's default (`dunning.claim_fallback`
 * on the merchant) or the subscription's own choice (`dunning.claim_fallback`, null = the
 * merchant's).
 */

/** The merchant's dunning defaults as a PATCH sends them; only the fields sent change. */
export const MerchantDunningPatch = z
  .object({
    claim_fallback: z.boolean().describe('Issue a krafa for the renewal when card retries run out'),
  })
  .partial()
  .strict();

export type MerchantDunningPatch = z.output<typeof MerchantDunningPatch>;

export interface MerchantDunning {
  claim_fallback: boolean;
}

/** The merchant's dunning defaults as stored (jsonb, possibly partial or missing), defaults filled in. */
export function merchantDunningOf(stored: unknown): MerchantDunning {
  const parsed = MerchantDunningPatch.safeParse(stored ?? {});
  return { claim_fallback: false, ...(parsed.success ? parsed.data : {}) };
}

/** Whether a subscription falls back to a krafa: its own choice, else the merchant's. */
export function claimFallbackOn(subscription: boolean | null, merchantStored: unknown): boolean {
  return subscription ?? merchantDunningOf(merchantStored).claim_fallback;
}

/** What a krafa's status means to the subscription waiting for it. */
export type ClaimOutcome = 'open' | 'paid' | 'ended';

/**
 * Paid; still payable (pending, issued, partly paid); or ended unpaid: expired, cancelled, or
 * refused by the bank at issuance (pending with the bank's error, decision 0103).
 */
export function claimOutcomeOf(status: string, refusedAtIssuance = false): ClaimOutcome {
  if (status === 'paid') return 'paid';
  if (status === 'pending' && refusedAtIssuance) return 'ended';
  return ['pending', 'issued', 'partially_paid'].includes(status) ? 'open' : 'ended';
}

/**
 * When an unpaid krafa has expired (epoch ms): the start of the day after its cancellation date
 * (niðurfellingardagur), when the billing run marks it expired (decision 0064). Iceland is UTC.
 */
export function claimExpiresAt(cancellationDate: string): number {
  return Date.parse(`${cancellationDate}T00:00:00Z`) + 86_400_000;
}
