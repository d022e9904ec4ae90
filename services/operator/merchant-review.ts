import type { Knex } from '../../db/knex';
import type { MerchantRow } from '../../db/merchants';
import type { ApplicationStatus } from '../../domain/capabilities';
import { createMerchantRepository } from '../../db/merchants';
import type { MerchantAccountService } from '../merchant/merchant-account';
import { presentMerchant, type MerchantObject } from '../merchant/merchant-object';

/** Operators see merchants as live mode sees them: onboarding is about going live. */
const present = (row: MerchantRow): MerchantObject => presentMerchant(row, true);

/**
 * The operators' side of onboarding (docs/decisions/0011-operators.md): the review queue, approval
 * or rejection of applications, the card acquirer's activation, the claims agreement, features.
 */
export function createMerchantReviewService(knex: Knex, accounts: MerchantAccountService) {
  const merchants = createMerchantRepository(knex);

  return {
    /** Merchants by application status, oldest submission first. */
    async list(opts: { status?: ApplicationStatus; limit: number; startingAfter?: string }) {
      const page = await merchants.listByApplication(opts);
      return { data: page.data.map(present), hasMore: page.hasMore };
    },
    retrieve: async (id: string) => present(await accounts.load(id)),
    approve: async (id: string, operatorId: string) => present(await accounts.approve(id, operatorId)),
    reject: async (id: string, operatorId: string, reason: string) =>
      present(await accounts.reject(id, operatorId, reason)),
    activateCardAcquirer: async (id: string) => present(await accounts.activateCardAcquirer(id)),
    signClaimsAgreement: async (id: string) => present(await accounts.signClaimsAgreement(id)),
    setFeatures: async (id: string, features: { pos?: boolean }) =>
      present(await accounts.setFeatures(id, features)),
  };
}

export type MerchantReviewService = ReturnType<typeof createMerchantReviewService>;
