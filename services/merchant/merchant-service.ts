import type { Scope } from '../../domain/scope';
import type { ProfilePatch } from '../../domain/merchant-profile';
import type { MerchantAccountService } from './merchant-account';
import { presentMerchant, type MerchantObject } from './merchant-object';

/**
 * The merchant of an API key (`/v1/merchant`, spec §4.3): the key is the tenant, and the merchant
 * is shown as the key's mode sees it. The rules are the merchant account's, shared with the pages.
 */
export function createMerchantService(accounts: MerchantAccountService) {
  return {
    async retrieve(scope: Scope): Promise<MerchantObject> {
      return presentMerchant(await accounts.load(scope.merchantId), scope.livemode);
    },

    async updateProfile(scope: Scope, patch: ProfilePatch): Promise<MerchantObject> {
      const actor = scope.livemode ? 'live_key' : 'test_key';
      return presentMerchant(await accounts.updateProfile(scope.merchantId, patch, actor), scope.livemode);
    },

    async submit(scope: Scope): Promise<MerchantObject> {
      return presentMerchant(await accounts.submit(scope.merchantId), scope.livemode);
    },
  };
}

export type MerchantService = ReturnType<typeof createMerchantService>;
