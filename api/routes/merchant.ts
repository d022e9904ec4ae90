import { Router } from 'express';
import { z } from 'zod';
import type { Knex } from '../../db/knex';
import type { OperationDoc } from '../openapi';
import type { CompanyRegistry } from '../../domain/company-registry';
import { createTestCompanyRegistry } from '../../domain/company-registry';
import { ProfilePatch, zKennitala } from '../../domain/merchant-profile';
import { ThemePatch } from '../../domain/theme';
import { NotFoundError, ServiceUnavailableError } from '../../domain/errors';
import { createRoutes } from '../route';
import {
  MerchantSchema,
  createMerchantAccountService,
  presentMerchant,
} from '../../services/merchant-account';
import { ThemeSchema, createThemeService, presentTheme } from '../../services/theme';

export interface MerchantRouterDeps {
  knex: Knex;
  /** Company registries per environment; live is null until a real registry is configured. */
  registries?: { test: CompanyRegistry; live: CompanyRegistry | null };
}

const RegistryLookup = z.object({ kennitala: zKennitala }).strict();

const RegistryCompanySchema = z.object({
  object: z.literal('registry_company'),
  kennitala: z.string(),
  name: z.string(),
  legal_address: z.object({
    street: z.string(),
    city: z.string(),
    postalCode: z.string(),
    country: z.string(),
  }),
  source: z.string(),
});

/** `/v1/merchant`: the key's own merchant (spec §4.3). No id in any path: the key is the tenant. */
export function merchantRouter(deps: MerchantRouterDeps, docs: OperationDoc[]): Router {
  const router = Router();
  const route = createRoutes(router, docs);
  const accounts = createMerchantAccountService(deps.knex);
  const themes = createThemeService(deps.knex);
  const registries = deps.registries ?? { test: createTestCompanyRegistry(), live: null };
  const tag = 'Merchant';

  route({
    method: 'get',
    path: '/v1/merchant',
    summary: 'Retrieve the merchant of the API key, with capabilities and features',
    tag,
    response: MerchantSchema,
    handler: async ({ scope }) => presentMerchant(await accounts.load(scope.merchantId), scope.livemode),
  });

  route({
    method: 'patch',
    path: '/v1/merchant',
    summary: 'Update profile fields; only those sent change',
    tag,
    body: ProfilePatch,
    response: MerchantSchema,
    handler: async ({ body, scope }) =>
      presentMerchant(
        await accounts.updateProfile(scope.merchantId, body, scope.livemode ? 'live_key' : 'test_key'),
        scope.livemode,
      ),
  });

  route({
    method: 'post',
    path: '/v1/merchant/submit',
    summary: 'Submit the application for review (needs kennitala, phone and business_description)',
    tag,
    body: z.object({}).strict(),
    response: MerchantSchema,
    handler: async ({ scope }) => presentMerchant(await accounts.submit(scope.merchantId), scope.livemode),
  });

  route({
    method: 'post',
    path: '/v1/merchant/registry-lookup',
    summary: 'Look a company up in the national company registry by kennitala',
    tag,
    body: RegistryLookup,
    response: RegistryCompanySchema,
    handler: async ({ body, scope }) => {
      const registry = scope.livemode ? registries.live : registries.test;
      if (!registry) {
        throw new ServiceUnavailableError(
          'The company registry is not available in live mode yet',
          'registry_unavailable',
        );
      }
      const company = await registry.lookup(body.kennitala);
      if (!company) {
        throw new NotFoundError(
          `The company registry has no company with kennitala ${body.kennitala}`,
          'kennitala',
        );
      }
      return { object: 'registry_company' as const, ...company, source: registry.source };
    },
  });

  route({
    method: 'get',
    path: '/v1/merchant/theme/',
    summary: "Retrieve the checkout theme of the key's environment",
    tag,
    response: ThemeSchema,
    handler: async ({ scope }) => presentTheme(await themes.read(scope)),
  });

  route({
    method: 'patch',
    path: '/v1/merchant/theme/',
    summary: 'Update the checkout theme; null clears a field. A live key claims a test theme.',
    tag,
    body: ThemePatch,
    response: ThemeSchema,
    handler: async ({ body, scope }) => presentTheme(await themes.patch(scope, body)),
  });

  return router;
}
