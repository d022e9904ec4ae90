import { Router } from 'express';
import { z } from 'zod';
import type { OperationDoc } from '../openapi';
import type { MerchantService } from '../../services/merchant/merchant-service';
import type { RegistryLookup } from '../../services/merchant/registry-lookup';
import type { ThemeService } from '../../services/theme';
import { ProfilePatch, zKennitala } from '../../domain/merchant-profile';
import { ThemePatch } from '../../domain/theme';
import { createRoutes } from '../route';
import { MerchantSchema } from '../../services/merchant/merchant-object';
import { RegistryCompanySchema } from '../../services/merchant/registry-company-object';
import { ThemeSchema, presentTheme } from '../../services/theme';

export interface MerchantRouterDeps {
  merchants: MerchantService;
  themes: ThemeService;
  lookUpCompany: RegistryLookup;
}

const RegistryLookupBody = z.object({ kennitala: zKennitala }).strict();

/** `/v1/merchant`: the key's own merchant (spec §4.3). No id in any path: the key is the tenant. */
export function merchantRouter(deps: MerchantRouterDeps, docs: OperationDoc[]): Router {
  const router = Router();
  const route = createRoutes(router, docs);
  const { merchants, themes } = deps;
  const tag = 'Merchant';

  route({
    method: 'get',
    path: '/v1/merchant',
    summary: 'Retrieve the merchant of the API key, with capabilities and features',
    tag,
    response: MerchantSchema,
    handler: ({ scope }) => merchants.retrieve(scope),
  });

  route({
    method: 'patch',
    path: '/v1/merchant',
    summary: 'Update profile fields; only those sent change',
    tag,
    body: ProfilePatch,
    response: MerchantSchema,
    handler: ({ body, scope }) => merchants.updateProfile(scope, body),
  });

  route({
    method: 'post',
    path: '/v1/merchant/submit',
    summary: 'Submit the application for review (needs kennitala, phone and business_description)',
    tag,
    errors: [403, 422],
    body: z.object({}).strict(),
    response: MerchantSchema,
    handler: ({ scope }) => merchants.submit(scope),
  });

  route({
    method: 'post',
    path: '/v1/merchant/registry-lookup',
    summary: 'Look a company up in the national company registry by kennitala',
    tag,
    errors: [404],
    body: RegistryLookupBody,
    response: RegistryCompanySchema,
    handler: ({ body, scope }) => deps.lookUpCompany(scope, body.kennitala),
  });

  route({
    method: 'get',
    path: '/v1/merchant/theme/',
    summary: "Retrieve the checkout theme of the key's environment",
    tag,
    errors: [404],
    response: ThemeSchema,
    handler: async ({ scope }) => presentTheme(await themes.read(scope)),
  });

  route({
    method: 'patch',
    path: '/v1/merchant/theme/',
    summary: 'Update the checkout theme; null clears a field. A live key claims a test theme.',
    tag,
    // Spec §4.3: 400, 404, 409 and 422.
    errors: [404, 409, 422],
    body: ThemePatch,
    response: ThemeSchema,
    handler: async ({ body, scope }) => presentTheme(await themes.patch(scope, body)),
  });

  return router;
}
